"""The request edge, as pure ASGI: request id, body limits while reading, access log, last 500.

It wraps the whole application (outside Starlette's own error middleware), so every response,
including a 500, carries `X-Request-ID`, and nothing reaches the client that we did not render.
"""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import unquote

from lisan.core.context import request_id_var
from lisan.core.errors import InternalError, LisanError, PayloadTooLarge, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

JSON_BODY_LIMIT = 16 * 1024
COMMAND_BODY_LIMIT = 1024 * 1024
COMMAND_PATH = "/v1/commands"

access_log = logging.getLogger("lisan.access")
error_log = logging.getLogger("lisan.error")


def body_limit_for(path: str) -> int:
    return COMMAND_BODY_LIMIT if path == COMMAND_PATH else JSON_BODY_LIMIT


def request_id_from(headers: list[tuple[bytes, bytes]]) -> str:
    """The client's X-Request-ID when it is a UUID (normalised), else a fresh one."""
    for name, value in headers:
        if name == b"x-request-id":
            try:
                return str(uuid.UUID(value.decode("latin-1")))
            except ValueError:
                break
    return str(uuid.uuid4())


def _declared_length(headers: list[tuple[bytes, bytes]]) -> int | None:
    for name, value in headers:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


def _path_keeping_encoded_slashes(scope: Scope) -> str:
    """The decoded path, except that an encoded slash stays `%2F`: a path parameter holding
    one must not turn into extra path segments (and so into another route)."""
    raw: bytes | None = scope.get("raw_path")
    # Every request passes here: look for both spellings rather than lowercase a copy.
    if not raw or (b"%2f" not in raw and b"%2F" not in raw):
        return str(scope["path"])
    parts = re.split(r"%2[fF]", raw.decode("latin-1"))
    return "%2F".join(unquote(part) for part in parts)


class _BodyTooLarge(Exception):
    pass


async def _read_body(receive: Receive, limit: int) -> tuple[bytes, Message | None]:
    """Read the body chunk by chunk, stopping as soon as it passes `limit`.

    Returns the body and, if the client went away, the disconnect message to replay.
    """
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(chunks), message
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            raise _BodyTooLarge
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), None


def _replay(body: bytes, disconnect: Message | None, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            if disconnect is not None:
                return disconnect
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


class RequestEdge:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope["headers"]
        scope["path"] = _path_keeping_encoded_slashes(scope)
        request_id = request_id_from(headers)
        scope.setdefault("state", {})["request_id"] = request_id
        token = request_id_var.set(request_id)
        started = time.perf_counter()
        status = 0
        id_header = (b"x-request-id", request_id.encode())

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), id_header]
            await send(message)

        try:
            limit = body_limit_for(scope["path"])
            declared = _declared_length(headers)
            if declared is not None and declared > limit:
                raise _BodyTooLarge
            body, disconnect = await _read_body(receive, limit)
            await self.app(scope, _replay(body, disconnect, receive), send_with_id)
        except _BodyTooLarge:
            if status == 0:
                await _send_error(send_with_id, PayloadTooLarge())
        except Exception:
            error_log.exception("unhandled error", extra={"path": scope["path"]})
            if status == 0:
                await _send_error(send_with_id, InternalError())
        finally:
            request_id_var.reset(token)
            access_log.info(
                "request",
                extra={
                    "request_id": request_id,
                    "method": scope["method"],
                    "path": scope["path"],
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                    "client": (scope.get("client") or ("-",))[0],
                },
            )


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
