"""Clients that send too much head or send it too slowly, against a real `lisan serve`.

Probes of the served app found no bound on request headers (a 32 MB header and 100,000
headers answered 200) and no read timeout (a body sent one byte every 10 s was still open after
300 s; 1,100 stalled connections at a 1,024 file limit stopped /health). The server here runs
with 1 s and 2 s bounds, so each test takes about as long as the bound it checks.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from lisan.server.request_head import MAX_HEAD_BYTES, MAX_HEADER_FIELDS
from tests.fixtures.cli import LISAN, clean_env
from tests.fixtures.network import closed_port

HEADER_TIMEOUT_S = 1.0
BODY_IDLE_TIMEOUT_S = 1.0
BODY_TIMEOUT_S = 2.0
SLACK_S = 2.0  # a loaded test machine; the bounds are 1 s and 2 s


@dataclass(frozen=True)
class Served:
    port: int
    pid: int
    log: Path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    directory = tmp_path_factory.mktemp("slow-clients")
    port = closed_port()
    env = clean_env(
        LISAN_DATABASE_URL=f"sqlite+aiosqlite:///{directory}/l.db",
        LISAN_STORAGE_DIR=str(directory / "objects"),
        LISAN_RUN_WORKER="false",
        LISAN_HEADER_TIMEOUT_S=str(HEADER_TIMEOUT_S),
        LISAN_BODY_IDLE_TIMEOUT_S=str(BODY_IDLE_TIMEOUT_S),
        LISAN_BODY_TIMEOUT_S=str(BODY_TIMEOUT_S),
    )
    log = directory / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*LISAN, "serve", "--port", str(port)],
            env=env,
            cwd=directory,
            stdout=output,
            stderr=subprocess.STDOUT,
        )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).raise_for_status()
                break
            except httpx.TransportError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError(log.read_text()) from None
                time.sleep(0.1)
        yield Served(port, process.pid, log)
    finally:
        process.terminate()
        process.wait(timeout=15)


def _connect(served: Served) -> socket.socket:
    return socket.create_connection(("127.0.0.1", served.port), timeout=5)


@dataclass(frozen=True)
class Answer:
    status: int | None  # None: no answer (closed without one, or none in time)
    body: bytes
    closed: bool  # the server closed the connection


def _closed_by_server(sock: socket.socket, wait_s: float) -> bool:
    sock.settimeout(wait_s)
    try:
        while True:
            if not sock.recv(65536):
                return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except TimeoutError:
        return False


def _answer(sock: socket.socket, wait_s: float, close_wait_s: float = 1.0) -> Answer:
    """Read one response (status and Content-Length body), then whether the server closes
    (within `close_wait_s`)."""
    sock.settimeout(wait_s)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            chunk = sock.recv(65536)
            if not chunk:
                return Answer(None, b"", closed=True)
            data += chunk
    except (ConnectionResetError, BrokenPipeError):
        return Answer(None, b"", closed=True)
    except TimeoutError:
        return Answer(None, b"", closed=False)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return Answer(status, body, closed=_closed_by_server(sock, close_wait_s))


def _error(answer: Answer) -> str:
    document = json.loads(answer.body)
    assert list(document) == ["error"]
    message: str = document["error"]
    return message


def _peak_rss_kib(pid: int) -> int | None:
    """The process's peak resident size since the last reset (Linux), or None elsewhere."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def _reset_peak_rss(pid: int) -> bool:
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
    except OSError:
        return False
    return True


# Header size and count: 431 with a JSON error, then the connection closes.


def test_an_oversized_header_is_431_and_the_connection_closes(served: Served) -> None:
    head = b"GET /health HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * (2 * MAX_HEAD_BYTES) + b"\r\n\r\n"
    with _connect(served) as sock:
        sock.sendall(head)
        answer = _answer(sock, 5)
    assert answer.status == 431
    assert "too large" in _error(answer)
    assert answer.closed


def test_too_many_headers_are_431(served: Served) -> None:
    fields = b"".join(b"X-H%d: v\r\n" % i for i in range(1000))
    assert len(fields) < MAX_HEAD_BYTES  # the count trips, not the size
    with _connect(served) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n" + fields + b"\r\n")
        answer = _answer(sock, 5)
    assert answer.status == 431
    assert answer.closed


def test_headers_within_the_bounds_pass(served: Served) -> None:
    fields = b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(MAX_HEADER_FIELDS - 2))
    with _connect(served) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n" + fields + b"\r\n")
        answer = _answer(sock, 5, close_wait_s=0.1)
    assert answer.status == 200
    assert not answer.closed


def test_a_32_mb_header_is_refused_while_it_is_read(served: Served) -> None:
    """The refusal comes from the first few reads: the server never holds the 32 MB."""
    measured = _reset_peak_rss(served.pid)
    before = _peak_rss_kib(served.pid)
    head = b"GET /health HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * (32 * 1024 * 1024) + b"\r\n\r\n"
    with _connect(served) as sock:

        def send() -> None:
            with contextlib.suppress(OSError):  # the server may stop reading: what we want
                sock.sendall(head)

        sender = threading.Thread(target=send)
        sender.start()
        answer = _answer(sock, 10)
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)  # ends the sender, if it is still sending
        sender.join(10)
    assert answer.status == 431
    after = _peak_rss_kib(served.pid)
    if measured and before is not None and after is not None:
        assert after - before < 16 * 1024, f"the server's peak memory grew {after - before} KiB"


# Read timeouts.


def test_a_client_stalling_in_its_headers_is_disconnected(served: Served) -> None:
    with _connect(served) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\nX-Slow: ")
        started = time.monotonic()
        answer = _answer(sock, HEADER_TIMEOUT_S + SLACK_S)
        elapsed = time.monotonic() - started
    assert answer.closed, "still open past the header bound"
    assert answer.status in (408, None)
    assert HEADER_TIMEOUT_S * 0.8 <= elapsed <= HEADER_TIMEOUT_S + SLACK_S


def _post_head(length: int) -> bytes:
    return (
        b"POST /v1/auth/register-device HTTP/1.1\r\nHost: t\r\n"
        b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % length
    )


def test_a_body_stalled_mid_way_is_408(served: Served) -> None:
    with _connect(served) as sock:
        sock.sendall(_post_head(100) + b'{"install_id": ')
        started = time.monotonic()
        answer = _answer(sock, BODY_IDLE_TIMEOUT_S + SLACK_S)
        elapsed = time.monotonic() - started
    assert answer.status == 408
    assert _error(answer) == "the request was not received in time"
    assert answer.closed
    assert BODY_IDLE_TIMEOUT_S * 0.8 <= elapsed <= BODY_IDLE_TIMEOUT_S + SLACK_S


def test_a_trickled_body_is_cut_off_at_the_total_bound(served: Served) -> None:
    """One byte every 0.3 s never trips the idle bound; the total bound ends it."""
    with _connect(served) as sock:
        sock.sendall(_post_head(1000))
        started = time.monotonic()
        answer = Answer(None, b"", closed=False)
        while time.monotonic() - started < BODY_TIMEOUT_S + SLACK_S:
            try:
                sock.sendall(b" ")
            except OSError:
                answer = Answer(None, b"", closed=True)
                break
            answer = _answer(sock, 0.3)
            if answer.status is not None or answer.closed:
                break
        elapsed = time.monotonic() - started
    assert answer.closed, "still open past the body bound"
    assert answer.status in (408, None)
    assert BODY_TIMEOUT_S * 0.8 <= elapsed <= BODY_TIMEOUT_S + SLACK_S


def test_a_client_gone_mid_body_is_logged_as_499_not_as_an_error(served: Served) -> None:
    with _connect(served) as sock:
        sock.sendall(_post_head(100) + b'{"install_id": ')
        time.sleep(0.1)
    deadline = time.monotonic() + 5
    while '"status":499' not in served.log.read_text() and time.monotonic() < deadline:
        time.sleep(0.05)
    records = [json.loads(line) for line in served.log.read_text().splitlines()]
    assert [r["path"] for r in records if r.get("status") == 499] == ["/v1/auth/register-device"]
    assert not [r for r in records if r["level"] not in ("DEBUG", "INFO")]
    assert not [r for r in records if "exc" in r]


def test_health_answers_while_stalled_connections_are_open_and_they_are_closed(
    served: Served,
) -> None:
    stalled = [_connect(served) for _ in range(50)]
    try:
        for sock in stalled[::2]:  # half send part of a request; half send nothing at all
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: t\r\n")
        started = time.monotonic()
        health = httpx.get(f"http://127.0.0.1:{served.port}/health", timeout=2)
        assert health.status_code == 200
        assert time.monotonic() - started < HEADER_TIMEOUT_S / 2, "answered while they stall"
        deadline = started + HEADER_TIMEOUT_S + SLACK_S
        still_open = [
            sock
            for sock in stalled
            if not _closed_by_server(sock, max(deadline - time.monotonic(), 0.01))
        ]
        assert not still_open, f"{len(still_open)} of 50 stalled connections still open"
    finally:
        for sock in stalled:
            sock.close()
