"""Bounds on a request's head, enforced while it is read, over uvicorn's httptools protocol.

uvicorn (httptools) puts no limit on the request line and headers and no time limit on sending
them: a 32 MB header and 100,000 headers were answered 200, and a connection that sent half its
headers, or nothing, stayed open forever. `HeadBoundedProtocol` refuses:

- more than `MAX_HEADER_FIELDS` header fields or `MAX_HEAD_BYTES` of request line and fields
  (chunked trailers count too): 431 `{"error": ...}`, then the connection ends;
- a head not complete `LISAN_HEADER_TIMEOUT_S` after the connection's opening, or after a later
  request's first byte: 408, then the connection ends (silently, if nothing was ever sent).

httptools hands a header over only once it is complete, so counting fields alone would let one
endless header grow in its buffer. Bytes that arrive without the parser reporting anything are
that buffer, and count towards the bound as they arrive: the server holds at most
`MAX_HEAD_BYTES` plus one network read of a request's head.

A connection ends by lingering (`linger`): the answer, end of stream, then what the client
still sends is read and dropped for a while, so that closing does not reset the connection (a
reset can destroy the answer before the client reads it). `lisan.server.protocol` builds on this.
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

from lisan.core.errors import LisanError, RequestHeaderFieldsTooLarge, RequestTimeout, error_body
from lisan.core.settings import get_settings
from lisan.server.access import log_access

# A phone's request head is well under 1 KiB and a reverse proxy adds a few hundred bytes;
# 32 KiB is what a default nginx passes on (large_client_header_buffers 4 x 8k), 100 fields is
# Apache's and gunicorn's default. Past them it is not a client of ours.
MAX_HEAD_BYTES = 32 * 1024
MAX_HEADER_FIELDS = 100
# How long a refused connection lingers: the client reads the answer and closes its side.
LINGER_S = 2.0

HEAD_TOO_LARGE = RequestHeaderFieldsTooLarge(
    f"request headers too large: at most {MAX_HEADER_FIELDS} fields and "
    f"{MAX_HEAD_BYTES // 1024} KiB in all"
)


class _HeadTooLarge(Exception):
    """Raised from a parser callback to stop the parser at once."""


class HeadBoundedProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self.header_timeout_s = get_settings().header_timeout_s  # cached: read once a process
        self._head_bytes = 0  # request line and header fields of the current request
        self._head_fields = 0
        self._unreported = 0  # bytes read since the parser last reported anything
        self._reported = False
        self._overflow = False
        self._request_begun = False  # a byte of the current request's head has arrived
        self._head_started = 0.0
        self._head_timer: asyncio.TimerHandle | None = None
        self.lingering = False  # the connection is ending: what arrives is dropped
        self._linger_timer: asyncio.TimerHandle | None = None

    # The connection.

    def connection_made(  # type: ignore[override]
        self, transport: asyncio.Transport
    ) -> None:
        super().connection_made(transport)
        self._arm_head_timer()  # the first request's head is due from the connection's opening

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        if self._linger_timer is not None:
            self._linger_timer.cancel()
            self._linger_timer = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.lingering:
            return  # dropped
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

    def linger(self, for_s: float) -> None:
        """The answer is out and nothing follows it: end the stream, drop whatever the client
        still sends, and close after `for_s` (or as soon as the client closes its side)."""
        self.lingering = True
        self._cancel_head_timer()
        if self.transport.is_closing():
            return
        if self.transport.can_write_eof():
            self.transport.write_eof()
            self._linger_timer = self.loop.call_later(for_s, self.transport.close)
        else:
            self.transport.close()

    # The parser's callbacks.

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._reported = True
        self._head_bytes = self._head_fields = 0
        self._request_begun = True
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

    def on_body(self, body: bytes) -> None:
        self._reported = True
        super().on_body(body)

    def on_message_complete(self) -> None:
        self._reported = True
        super().on_message_complete()

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
            self.lingering = True
            self.transport.close()

    # Refusing a request.

    def _refuse(self, error: LisanError) -> None:
        """Answer `error` as JSON, then end the connection."""
        if self.cycle is not None and not self.cycle.response_complete:
            # An earlier request on this connection is still being answered (pipelining), or
            # this is a chunked body's trailer: there is no room for an answer of ours.
            self.lingering = True
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
        # The head was never read to its end: no method, no path, no route.
        scope = {
            "method": "-",
            "path": "-",
            "client": self.client,
            "state": {"request_id": request_id},
        }
        log_access(scope, error.status_code, self._head_started)
        self.linger(LINGER_S)
