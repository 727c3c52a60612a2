"""What `lisan serve` adds to uvicorn: bounds on what a client sends, enforced while reading.

uvicorn (httptools) puts no limit on the request line and headers and no time limit on
sending them: a 32 MB header and 100,000 headers were answered 200, and a connection that
sends half its headers, or nothing, stays open forever. `BoundedHttpToolsProtocol` is uvicorn's
httptools protocol with three bounds:

- at most `MAX_HEADER_FIELDS` header fields and `MAX_HEAD_BYTES` of request line and fields
  (trailers of a chunked body count too): 431 `{"error": ...}`, then the connection closes;
- `LISAN_HEADER_TIMEOUT_S` from a connection's opening, or from the first byte of a later
  request on it, to the end of that request's headers: 408, then the connection closes (a
  connection that never sent a byte is closed without an answer);
- `LISAN_BODY_TIMEOUT_S` for the rest of a body answered before it was read (the edge's 413):
  it is read and dropped, so that the client gets the answer rather than a reset connection,
  and a body still coming after that long has its connection closed.

The body's bounds (size and time) are otherwise the request edge's (`lisan.core.edge`).

httptools hands a header over only once it is complete, so counting fields alone would let one
endless header grow in its buffer. Bytes that arrive without the parser reporting anything are
that buffer, and count towards the bound as they arrive: the server holds at most
`MAX_HEAD_BYTES` plus one network read of a request's head.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import httptools
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import STATUS_LINE, HttpToolsProtocol
from uvicorn.server import ServerState

from lisan.core.edge import access_log
from lisan.core.errors import LisanError, RequestHeaderFieldsTooLarge, RequestTimeout, error_body
from lisan.core.settings import get_settings

# A phone's request head is well under 1 KiB and a reverse proxy adds a few hundred bytes;
# 32 KiB is what a default nginx passes on (large_client_header_buffers 4 x 8k), 100 fields is
# Apache's and gunicorn's default. Past them it is not a client of ours.
MAX_HEAD_BYTES = 32 * 1024
MAX_HEADER_FIELDS = 100
# After a refusal the answer is sent and the sending side shut; what the client still sends is
# read and dropped for this long, so that closing does not reset the connection (a reset can
# destroy the answer before the client reads it).
LINGER_S = 2.0
# When the server stops, how long an idle keep-alive connection may still bring a request.
SHUTDOWN_GRACE_S = 0.5

HEAD_TOO_LARGE = RequestHeaderFieldsTooLarge(
    f"request headers too large: at most {MAX_HEADER_FIELDS} fields and "
    f"{MAX_HEAD_BYTES // 1024} KiB in all"
)


class _HeadTooLarge(Exception):
    """Raised from a parser callback to stop the parser at once."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = get_settings()  # read once per process, then cached
        self.header_timeout_s = settings.header_timeout_s
        self.body_timeout_s = settings.body_timeout_s
        self._head_bytes = 0  # request line and header fields of the current request
        self._head_fields = 0
        self._unreported = 0  # bytes read since the parser last reported anything
        self._reported = False
        self._overflow = False
        self._request_begun = False  # a byte of the current request's head has arrived
        self._message_open = False  # the current request has not been read to its end
        self._refused = False
        self._head_started = 0.0
        self._head_timer: asyncio.TimerHandle | None = None
        self._linger_timer: asyncio.TimerHandle | None = None
        self._drain_timer: asyncio.TimerHandle | None = None
        self._shutting_down = False
        self._shutdown_timer: asyncio.TimerHandle | None = None

    # The connection.

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self._arm_head_timer()  # the first request's head is due from the connection's opening

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        self._cancel_drain_timer()
        for timer in (self._linger_timer, self._shutdown_timer):
            if timer is not None:
                timer.cancel()
        self._linger_timer = self._shutdown_timer = None
        super().connection_lost(exc)

    def shutdown(self) -> None:
        """The server stops: an idle connection is closed after SHUTDOWN_GRACE_S, not at once.
        A request the client sent just before may be in the socket still unread; closing would
        reset it, unanswered, where it is only a moment from being served (with
        `Connection: close`)."""
        self._shutting_down = True
        if self.cycle is None or self.cycle.response_complete:
            self._shutdown_timer = self.loop.call_later(SHUTDOWN_GRACE_S, self._close_when_idle)
        else:
            self.cycle.keep_alive = False

    def _close_when_idle(self) -> None:
        self._shutdown_timer = None
        if self.cycle is None or self.cycle.response_complete:
            self.transport.close()
        else:  # a request came in the grace: closed once it is answered
            self.cycle.keep_alive = False

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return  # lingering after a refusal: dropped
        self._unset_keepalive_if_required()
        self._reported = False
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError:
            if self._overflow:
                self._refuse(HEAD_TOO_LARGE)
                return
            msg = "Invalid HTTP request received."
            self.logger.warning(msg)
            self.send_400_response(msg)
            return
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        # Bytes the parser took without reporting anything are a header it is still buffering.
        self._unreported = 0 if self._reported else self._unreported + len(data)
        if self._head_bytes + self._unreported > MAX_HEAD_BYTES:
            self._refuse(HEAD_TOO_LARGE)

    # The parser's callbacks.

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._reported = True
        self._head_bytes = self._head_fields = 0
        self._request_begun = self._message_open = True
        self._head_started = time.perf_counter()
        self._arm_head_timer()

    def on_url(self, url: bytes) -> None:
        self._reported = True
        self._grow_head(len(url))
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._reported = True
        self._head_fields += 1
        self._grow_head(len(name) + len(value) + 4)  # "name: value\r\n"
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._reported = True
        self._request_begun = False
        self._cancel_head_timer()
        super().on_headers_complete()
        if self._shutting_down and self.cycle is not None:
            self.cycle.keep_alive = False  # served, then the connection closes

    def on_body(self, body: bytes) -> None:
        self._reported = True
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._reported = True
        self._message_open = False
        answered_early = self._drain_timer is not None
        self._cancel_drain_timer()
        super().on_message_complete()
        if answered_early and self.timeout_keep_alive_task is None:
            # uvicorn armed its keep-alive timer when the answer went out, and the rest of the
            # body cancelled it: without this, the connection would then idle for ever.
            self.timeout_keep_alive_task = self.loop.call_later(
                self.timeout_keep_alive, self.timeout_keep_alive_handler
            )

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._message_open and not self.transport.is_closing():
            # Answered before its body was read to its end (the edge's 413): the rest is
            # dropped as it arrives (uvicorn), for as long as a body may take, then we close.
            self._drain_timer = self.loop.call_later(self.body_timeout_s, self.transport.close)

    def _cancel_drain_timer(self) -> None:
        if self._drain_timer is not None:
            self._drain_timer.cancel()
            self._drain_timer = None

    def _grow_head(self, size: int) -> None:
        self._head_bytes += size
        if self._head_bytes > MAX_HEAD_BYTES or self._head_fields > MAX_HEADER_FIELDS:
            self._overflow = True
            raise _HeadTooLarge

    # The header timeout.

    def _arm_head_timer(self) -> None:
        if self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout_s, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        if self._request_begun:
            self._refuse(RequestTimeout())
        else:  # nothing was ever sent on this connection
            self._refused = True
            self.transport.close()

    # Refusing a request.

    def _refuse(self, error: LisanError) -> None:
        """Answer `error` as JSON, then close the connection once the client has read it."""
        self._refused = True
        self._cancel_head_timer()
        if self.cycle is not None and not self.cycle.response_complete:
            # An earlier request on this connection is still being answered (pipelining), or
            # this is a chunked body's trailer: there is no room for an answer of ours.
            self.transport.close()
            return
        request_id = str(uuid.uuid4())
        body = error_body(error.message)
        lines = [STATUS_LINE[error.status_code]]
        headers = [
            *self.server_state.default_headers,
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"x-request-id", request_id.encode()),
            (b"connection", b"close"),
        ]
        lines.extend(name + b": " + value + b"\r\n" for name, value in headers)
        self.transport.write(b"".join([*lines, b"\r\n", body]))
        access_log.info(
            "request",
            extra={
                "request_id": request_id,
                "method": "-",  # the head was never read to its end
                "path": "-",
                "status": error.status_code,
                "duration_ms": round((time.perf_counter() - self._head_started) * 1000, 3),
                "client": self.client[0] if self.client else "-",
            },
        )
        if self.transport.can_write_eof():
            self.transport.write_eof()  # the answer, then end of stream; keep reading meanwhile
            self._linger_timer = self.loop.call_later(LINGER_S, self.transport.close)
        else:
            self.transport.close()
