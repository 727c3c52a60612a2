"""The protocol `lisan serve` runs: uvicorn's httptools protocol with the request head's bounds
(`lisan.server.request_head`), and connections that end the way a proxy in front expects.

- An idle keep-alive connection stays open `LISAN_KEEPALIVE_TIMEOUT_S` (75 s), longer than the
  proxy's own idle bound on its upstream connections (nginx: 60 s), so the proxy closes an idle
  connection first. uvicorn's 5 s let nginx send a request on a connection Lisan was closing,
  and the phone got a 502.
- An answer given before the request's body was read to its end (the edge's 413 and 408) says
  `Connection: close` and ends the stream with it, so a client that held its body back
  (`Expect: 100-continue`) is not left waiting. What a client still sends is read and dropped
  until the body's time is up (`LISAN_BODY_TIMEOUT_S` from the end of the headers): closing at
  once would reset the connection under a client still sending, and can destroy the answer.
- When the server stops, an idle connection gets `SHUTDOWN_GRACE_S` to bring one more request.

The body's size and time bounds are otherwise the request edge's (`lisan.server.edge`). All this
overrides uvicorn's private protocol: `UVICORN_MEMBERS` is everything of uvicorn's relied on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

from uvicorn.config import Config
from uvicorn.server import ServerState

from lisan.core.settings import get_settings
from lisan.server.request_head import LINGER_S, HeadBoundedProtocol

# When the server stops, how long an idle keep-alive connection may still bring a request.
SHUTDOWN_GRACE_S = 0.5


@dataclass(frozen=True)
class UvicornMembers:
    """What this protocol (here and in `lisan.server.request_head`) overrides or uses of uvicorn's
    beyond asyncio's protocol interface: HttpToolsProtocol's methods with their parameters
    (after self), and attributes of the protocol and of a request's RequestResponseCycle.
    tests/server/test_uvicorn_members.py holds the installed uvicorn to them, and pyproject.toml
    admits only the uvicorn minor version they were checked against."""

    protocol_methods: Mapping[str, tuple[str, ...]]
    protocol_attributes: frozenset[str]
    cycle_attributes: frozenset[str]


UVICORN_MEMBERS = UvicornMembers(
    protocol_methods={
        "__init__": ("config", "server_state", "app_state", "_loop"),
        "connection_made": ("transport",),
        "connection_lost": ("exc",),
        "shutdown": (),
        "data_received": ("data",),
        "on_message_begin": (),
        "on_url": ("url",),
        "on_header": ("name", "value"),
        "on_headers_complete": (),
        "on_body": ("body",),
        "on_message_complete": (),
        "on_response_complete": (),
        "_unset_keepalive_if_required": (),
        "send_400_response": ("msg",),
        "_should_upgrade": (),
        "handle_websocket_upgrade": (),
        "_unsupported_upgrade_warning": (),
    },
    protocol_attributes=frozenset(
        {"loop", "transport", "parser", "logger", "cycle", "server_state", "client"}
        | {"timeout_keep_alive"}
    ),
    cycle_attributes=frozenset({"transport", "keep_alive", "response_complete"}),
)


class BoundedHttpToolsProtocol(HeadBoundedProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        settings = get_settings()  # read once per process, then cached
        self.timeout_keep_alive = settings.keepalive_timeout_s  # what uvicorn's timer waits
        self.body_timeout_s = settings.body_timeout_s
        self._message_open = False  # the current request has not been read to its end
        self._body_deadline = 0.0  # when the current request's body is due (loop time)
        self._shutting_down = False
        self._shutdown_timer: asyncio.TimerHandle | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        if self._shutdown_timer is not None:
            self._shutdown_timer.cancel()
            self._shutdown_timer = None
        super().connection_lost(exc)

    # Stopping.

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

    # A request.

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._message_open = True

    def on_headers_complete(self) -> None:
        self._body_deadline = self.loop.time() + self.body_timeout_s
        previous = self.cycle
        super().on_headers_complete()
        if self.cycle is not previous:  # this request's cycle (there is none for an upgrade)
            self.cycle.transport = cast(asyncio.Transport, _CycleTransport(self))
            if self._shutting_down:
                self.cycle.keep_alive = False  # served, then the connection closes

    def on_message_complete(self) -> None:
        self._message_open = False
        super().on_message_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if self._message_open:  # answered before its body was read, without saying so
            self._end_after_early_answer()

    # Ending the connection after an answer.

    def close_after_answer(self) -> None:
        """A request's cycle closes the connection once its answer, `Connection: close`, is
        out: at once, unless the request's body has not been read to its end."""
        if self._message_open:
            self._end_after_early_answer()
        else:
            self.transport.close()

    def _end_after_early_answer(self) -> None:
        if not self.lingering:
            self.linger(max(LINGER_S, self._body_deadline - self.loop.time()))
        self._unset_keepalive_if_required()  # uvicorn arms it once the answer is out


class _CycleTransport:
    """The connection as a request's cycle (uvicorn's RequestResponseCycle) holds it: the same
    transport, except that the protocol decides what closing it after an answer does."""

    def __init__(self, protocol: BoundedHttpToolsProtocol) -> None:
        self._protocol = protocol

    def __getattr__(self, name: str) -> Any:
        return getattr(self._protocol.transport, name)

    def close(self) -> None:
        self._protocol.close_after_answer()
