"""A real `lisan serve`'s connections: an idle keep-alive connection outlasts the proxy's, and an
answer given before the body was read closes its connection at once.

uvicorn closes an idle keep-alive connection after 5 s while nginx keeps an idle upstream one
for 60 s: nginx then reused a connection the server was closing and the phone got a 502. And a
413 decided from `Content-Length` went out without `Connection: close`, so a client that sent
`Expect: 100-continue` and skipped its body waited for the server's body bound (60 s).
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest

from lisan.commands.endpoints import COMMAND_BODY_LIMIT
from lisan.core.settings import Settings
from lisan.server.edge import JSON_BODY_LIMIT
from tests.fixtures.serve import LisanServer, lisan_serve, serve_env

UVICORN_KEEPALIVE_S = 5.0  # uvicorn's default, which `lisan serve` used to keep
NGINX_UPSTREAM_KEEPALIVE_S = 60.0  # nginx's default upstream `keepalive_timeout`
SHORT_KEEPALIVE_S = 1
SHORT_BODY_TIMEOUT_S = 2.0
SLACK_S = 1.5  # a loaded test machine; below what would let uvicorn's 5 s pass


@pytest.fixture(scope="module")
async def served(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LisanServer]:
    """`lisan serve` with the default settings."""
    directory = tmp_path_factory.mktemp("served")
    env = serve_env(f"sqlite+aiosqlite:///{directory}/lisan.db", directory / "objects")
    async with lisan_serve(env, directory / "serve.log") as server:
        yield server


@pytest.fixture(scope="module")
async def served_short(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LisanServer]:
    """`lisan serve` with a short keep-alive and body bound."""
    directory = tmp_path_factory.mktemp("served-short")
    env = serve_env(
        f"sqlite+aiosqlite:///{directory}/lisan.db",
        directory / "objects",
        keepalive_timeout_s=str(SHORT_KEEPALIVE_S),
        body_timeout_s=str(SHORT_BODY_TIMEOUT_S),
    )
    async with lisan_serve(env, directory / "serve.log") as server:
        yield server


def _connect(server: LisanServer) -> socket.socket:
    address = urlsplit(server.base_url)
    assert address.hostname is not None
    assert address.port is not None
    return socket.create_connection((address.hostname, address.port), timeout=5)


@dataclass(frozen=True)
class Answer:
    status: int
    headers: dict[str, str]
    body: bytes
    informational: list[int]  # 1xx answers before it


def _read_answer(sock: socket.socket, wait_s: float = 5.0) -> Answer:
    """One final answer (with a Content-Length body), after any 1xx ones."""
    sock.settimeout(wait_s)
    data = b""
    informational: list[int] = []
    while True:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            assert chunk, f"closed without an answer (read {data!r})"
            data += chunk
        head, _, data = data.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        if status >= 200:
            break
        informational.append(status)
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    length = int(headers.get("content-length", "0"))
    while len(data) < length:
        chunk = sock.recv(65536)
        assert chunk, "closed in the middle of the answer"
        data += chunk
    return Answer(status, headers, data[:length], informational)


def _end_of_stream_within(sock: socket.socket, wait_s: float) -> bool:
    """The server ended the connection (end of stream or reset) within `wait_s`; anything it
    sends meanwhile is a failure."""
    sock.settimeout(wait_s)
    try:
        extra = sock.recv(65536)
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False
    assert extra == b"", f"unexpected bytes after the answer: {extra!r}"
    return True


def _get_health(sock: socket.socket) -> Answer:
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n\r\n")
    return _read_answer(sock)


def _post_head(path: str, length: int, *more: bytes) -> bytes:
    return b"".join(
        [
            b"POST %s HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" % path.encode(),
            b"Content-Length: %d\r\n" % length,
            *(header + b"\r\n" for header in more),
            b"\r\n",
        ]
    )


# Keep-alive: the server outlasts the proxy in front of it.


def test_the_default_keep_alive_outlasts_nginxs_upstream_keep_alive() -> None:
    default: int = Settings.model_fields["keepalive_timeout_s"].default
    assert default == 75
    assert default > NGINX_UPSTREAM_KEEPALIVE_S


def test_an_idle_keep_alive_connection_stays_open_past_5_s(served: LisanServer) -> None:
    with _connect(served) as sock:
        first = _get_health(sock)
        assert first.status == 200
        assert first.headers.get("connection") != "close"
        time.sleep(UVICORN_KEEPALIVE_S + 1.0)
        second = _get_health(sock)  # the same connection, idle past uvicorn's 5 s
    assert second.status == 200


def test_an_idle_keep_alive_connection_closes_at_lisan_keepalive_timeout_s(
    served_short: LisanServer,
) -> None:
    with _connect(served_short) as sock:
        assert _get_health(sock).status == 200
        started = time.monotonic()
        closed = _end_of_stream_within(sock, SHORT_KEEPALIVE_S + SLACK_S)
        elapsed = time.monotonic() - started
    assert closed, f"still open {SHORT_KEEPALIVE_S + SLACK_S} s after its answer"
    assert elapsed >= SHORT_KEEPALIVE_S * 0.8


# An answer before the body was read: Connection: close, and the connection ends.


def test_a_413_to_a_100_continue_client_closes_the_connection_at_once(
    served: LisanServer,
) -> None:
    """The client waits for `100 Continue` before sending its body; the server refuses it from
    its declared length instead, so the body never comes: the connection must end now, not
    when the server's body bound would."""
    head = _post_head("/v1/commands", COMMAND_BODY_LIMIT * 10, b"Expect: 100-continue")
    with _connect(served) as sock:
        sock.sendall(head)
        answer = _read_answer(sock)
        assert answer.status == 413
        assert answer.informational == [], "asked for the body it refuses"
        assert answer.headers["connection"] == "close"
        assert list(json.loads(answer.body)) == ["error"]
        assert _end_of_stream_within(sock, SLACK_S), "the connection stayed open"


def test_a_413_reaches_a_client_that_sends_its_whole_body_anyway(served: LisanServer) -> None:
    """Head and body sent in one go, the body far over the limit: the client reads the whole
    413 (the server drops the body as it comes rather than resetting the connection)."""
    body = b" " * (JSON_BODY_LIMIT * 64)
    with _connect(served) as sock:
        sock.sendall(_post_head("/v1/auth/register-device", len(body)) + body)
        answer = _read_answer(sock)
        assert (answer.status, answer.headers["connection"]) == (413, "close")
        assert list(json.loads(answer.body)) == ["error"]
        assert _end_of_stream_within(sock, SLACK_S)


def test_a_body_trickled_after_its_413_is_dropped_until_the_body_bound(
    served_short: LisanServer,
) -> None:
    """After the 413 the server has said all it will (end of stream at once), but it still
    reads and drops what the client sends, so that closing does not reset the connection under
    a client still sending; not for longer than a body may take."""
    with _connect(served_short) as sock:
        sock.sendall(_post_head("/v1/commands", COMMAND_BODY_LIMIT * 10) + b"{")
        started = time.monotonic()
        answer = _read_answer(sock)
        assert (answer.status, answer.headers["connection"]) == (413, "close")
        assert _end_of_stream_within(sock, SLACK_S)
        dropped_until = started
        try:
            while time.monotonic() - started < SHORT_BODY_TIMEOUT_S + SLACK_S:
                sock.sendall(b" ")
                dropped_until = time.monotonic()
                time.sleep(0.1)
        except OSError:  # reset: the server closed its end
            pass
    dropped_for = dropped_until - started
    assert dropped_for >= SHORT_BODY_TIMEOUT_S * 0.8, "closed under a client still sending"
    assert dropped_for < SHORT_BODY_TIMEOUT_S + SLACK_S, "still reading past the body bound"
