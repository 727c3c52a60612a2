"""The request edge, as pure ASGI: request id, body limits while reading, access log, last 500.

It wraps the whole application (outside Starlette's own error middleware), so every response,
including a 500, carries `X-Request-ID`, and nothing reaches the client that we did not render.

The body is read here, whole, before the application runs, within bounds of size (413) and time
(408); a client that goes away before its body is complete is logged as status 499 (nginx's
"client closed request") and the application never runs. A body's size bound is its route's
own where the route declares one (`ROUTE_BODY_LIMITS`: the command route's is the commands'),
else `JSON_BODY_LIMIT`.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
import uuid
from collections.abc import Mapping
from contextlib import nullcontext
from dataclasses import dataclass
from urllib.parse import unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from lisan.commands.endpoints import COMMAND_BODY_LIMIT, COMMAND_PATH
from lisan.core.context import command_outcome_var, request_id_var
from lisan.core.errors import (
    CLIENT_CLOSED_REQUEST,
    InternalError,
    LisanError,
    PayloadTooLarge,
    RequestTimeout,
    error_body,
)
from lisan.core.settings import Settings
from lisan.server.access import log_access

# A body's size bound: its route's own where the route declares one, else JSON_BODY_LIMIT.
JSON_BODY_LIMIT = 16 * 1024
ROUTE_BODY_LIMITS: Mapping[str, int] = {COMMAND_PATH: COMMAND_BODY_LIMIT}
# The defaults of LISAN_BODY_IDLE_TIMEOUT_S and LISAN_BODY_TIMEOUT_S.
BODY_IDLE_TIMEOUT_S: float = Settings.model_fields["body_idle_timeout_s"].default
BODY_TIMEOUT_S: float = Settings.model_fields["body_timeout_s"].default
# An answer given before the body was read to its end closes the connection: what follows on it
# is the rest of a body nobody reads, not a next request, and a client that held its body back
# for `100 Continue` would otherwise wait. The server drops what the client still sends for the
# body's time, then closes (lisan.server.protocol).
ANSWERED_EARLY = {"Connection": "close"}

error_log = logging.getLogger("lisan.error")


def body_limit_for(path: str) -> int:
    return ROUTE_BODY_LIMITS.get(path, JSON_BODY_LIMIT)


def request_id_from(headers: list[tuple[bytes, bytes]]) -> str:
    """The client's X-Request-ID when it is a UUID (normalised), else a fresh one."""
    for name, value in headers:
        if name == b"x-request-id":
            try:
                return str(uuid.UUID(value.decode("latin-1")))
            except ValueError:
                break
    return str(uuid.uuid4())


def _body_framing(headers: list[tuple[bytes, bytes]]) -> tuple[int | None, bool]:
    """The declared Content-Length (None: none, or not a number) and whether the request has a
    body at all (HTTP/1.1: a Content-Length above 0 or a Transfer-Encoding)."""
    declared: int | None = None
    has_body = False
    for name, value in headers:
        if name == b"content-length":
            try:
                declared = int(value)
            except ValueError:
                declared = None
            has_body = has_body or declared != 0
        elif name == b"transfer-encoding":
            has_body = True
    return declared, has_body


def _path_keeping_encoded_slashes(scope: Scope) -> str:
    """The decoded path, except that an encoded slash stays `%2F`: a path parameter holding
    one must not turn into extra path segments (and so into another route)."""
    raw: bytes | None = scope.get("raw_path")
    # Every request passes here: look for both spellings rather than lowercase a copy.
    if not raw or (b"%2f" not in raw and b"%2F" not in raw):
        return str(scope["path"])
    parts = re.split(r"%2[fF]", raw.decode("latin-1"))
    return "%2F".join(unquote(part) for part in parts)


@dataclass(frozen=True, slots=True)
class BodyTimeouts:
    """How long a body may take: `idle_s` between two of its chunks, `total_s` in all."""

    idle_s: float = BODY_IDLE_TIMEOUT_S
    total_s: float = BODY_TIMEOUT_S


class _BodyTooLarge(Exception):
    pass


class _BodyTimedOut(Exception):
    pass


class _ClientGone(Exception):
    pass


async def _read_body(receive: Receive, limit: int, timeouts: BodyTimeouts | None) -> bytes:
    """Read the body chunk by chunk, stopping as soon as it passes `limit` (`_BodyTooLarge`),
    a chunk is late (`_BodyTimedOut`) or the client goes away (`_ClientGone`).

    `timeouts` is None for a request without a body, whose one message the server holds
    already: no timer is armed for it (it is every GET).
    """
    chunks: list[bytes] = []
    size = 0
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeouts.total_s if timeouts else 0.0
    try:
        async with asyncio.timeout(None) if timeouts else nullcontext() as timer:
            while True:
                if timer is not None and timeouts is not None:
                    timer.reschedule(min(loop.time() + timeouts.idle_s, deadline))
                message = await receive()
                if message["type"] == "http.disconnect":
                    raise _ClientGone
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > limit:
                    raise _BodyTooLarge
                chunks.append(chunk)
                if not message.get("more_body", False):
                    return b"".join(chunks)
    except TimeoutError:
        raise _BodyTimedOut from None


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class RequestEdge:
    def __init__(self, app: ASGIApp, *, body_timeouts: BodyTimeouts | None = None) -> None:
        self.app = app
        # create_app passes the configured ones; the defaults are the settings' defaults.
        self.body_timeouts = body_timeouts or BodyTimeouts()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        scope["path"] = _path_keeping_encoded_slashes(scope)
        request_id = request_id_from(headers)
        state = scope.setdefault("state", {})
        state["request_id"] = request_id
        token = request_id_var.set(request_id)
        outcome_token = command_outcome_var.set(None)
        started = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                # Read when the answer starts: a route may have given the request a fresh id
                # (a command whose X-Request-ID the client had already used).
                id_header = (b"x-request-id", state["request_id"].encode())
                message["headers"] = [*message.get("headers", []), id_header]
            await send(message)

        try:
            limit = body_limit_for(scope["path"])
            declared, has_body = _body_framing(headers)
            if declared is not None and declared > limit:
                raise _BodyTooLarge
            body = await _read_body(receive, limit, self.body_timeouts if has_body else None)
            await self.app(scope, _replay(body, receive), send_with_id)
        except _BodyTooLarge:
            await _send_error(send_with_id, PayloadTooLarge(headers=ANSWERED_EARLY))
        except _BodyTimedOut:
            await _send_error(send_with_id, RequestTimeout(headers=ANSWERED_EARLY))
        except _ClientGone:
            status = CLIENT_CLOSED_REQUEST  # nobody to answer; not a server error
        except Exception:
            error_log.exception("unhandled error", extra={"path": scope["path"]})
            if status == 0:
                await _send_error(send_with_id, InternalError())
        finally:
            request_id_var.reset(token)
            log_access(scope, status, started)
            command_outcome_var.reset(outcome_token)


async def _send_error(send: Send, error: LisanError) -> None:
    body = error_body(error.message)
    await send(
        {
            "type": "http.response.start",
            "status": error.status_code,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *((k.lower().encode(), v.encode()) for k, v in error.headers.items()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
