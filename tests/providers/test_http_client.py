"""The provider client honours a proxy the environment names, as operators behind one expect:
HTTP_PROXY / HTTPS_PROXY carry the calls, NO_PROXY exempts hosts."""

from __future__ import annotations

import asyncio
import socket
import struct
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager

import pytest

from lisan.providers.http import ProviderHTTP, proxy_for

ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"


@pytest.fixture(autouse=True)
def fresh_proxy_reading() -> Iterator[None]:
    proxy_for.cache_clear()  # the environment is read once per URL
    yield
    proxy_for.cache_clear()


async def _proxy() -> tuple[asyncio.Server, list[bytes]]:
    """A proxy that answers every request itself, keeping each request line."""
    lines: list[bytes] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lines.append(await reader.readline())
        await reader.readuntil(b"\r\n\r\n")
        writer.write(ANSWER)
        await writer.drain()
        writer.close()

    return await asyncio.start_server(serve, "127.0.0.1", 0), lines


async def _post(url: str) -> int:
    client = ProviderHTTP()
    try:
        answer = await client.post(
            url, body=b"{}", headers={"Content-Type": "application/json"}, pool_wait_s=1, limit=99
        )
    finally:
        await client.aclose()
    return answer.status


async def test_a_proxy_in_the_environment_carries_the_call(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    server, lines = await _proxy()
    port = server.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    try:
        assert await _post("http://provider.test/v1/chat/completions") == 200
    finally:
        server.close()
        await server.wait_closed()
    assert lines == [b"POST http://provider.test/v1/chat/completions HTTP/1.1\r\n"]


async def test_no_proxy_exempts_a_host(monkeypatch: pytest.MonkeyPatch) -> None:
    provider, lines = await _proxy()  # reached directly, it answers as the provider
    port = provider.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # nothing there: a call through it fails
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    try:
        assert await _post(f"http://127.0.0.1:{port}/v1/chat/completions") == 200
    finally:
        provider.close()
        await provider.wait_closed()
    assert lines == [b"POST /v1/chat/completions HTTP/1.1\r\n"]


def _close(writer: asyncio.StreamWriter) -> None:
    writer.close()


def _reset(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()  # with no linger: a reset, not a close


@asynccontextmanager
async def _keep_alive_ending(
    end: Callable[[asyncio.StreamWriter], None], *, kept: int
) -> AsyncIterator[tuple[Callable[[], Awaitable[int]], list[int]]]:
    """A server whose first `kept` connections answer one request, kept alive, and are then
    ended (`end`) unanswered as the next request arrives, as a keep-alive timeout does; later
    connections answer every request. Yields a call through a ProviderHTTP (its status) and
    the numbers of the connections the server saw."""
    connections: list[int] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(number := len(connections) + 1)
        await reader.readuntil(b"\r\n\r\n")
        await reader.readexactly(2)
        if number <= kept:  # in flight together, so each gets a connection of its own
            await asyncio.sleep(0.05)
        writer.write(ANSWER.replace(b"\r\n\r\n", b"\r\nConnection: keep-alive\r\n\r\n", 1))
        await writer.drain()
        if number <= kept:
            await reader.readuntil(b"\r\n\r\n")
            end(writer)
            return
        while await reader.read(1024):
            pass

    server = await asyncio.start_server(serve, "127.0.0.1", 0)
    url = f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/v1/chat/completions"
    client = ProviderHTTP()

    async def call() -> int:
        answer = await client.post(
            url, body=b"{}", headers={"Content-Type": "application/json"}, pool_wait_s=1, limit=99
        )
        return answer.status

    try:
        yield call, connections
    finally:
        await client.aclose()
        server.close()
        await server.wait_closed()


@pytest.mark.parametrize("end", [_close, _reset], ids=["closed", "reset"])
async def test_a_kept_alive_connection_the_server_just_ended_costs_no_call(
    end: Callable[[asyncio.StreamWriter], None],
) -> None:
    """A server whose keep-alive ran out closes (or resets) the connection as the next request
    is sent on it: that request never reached it, so it goes again once, on a fresh
    connection, and the call succeeds (the command does not fail for a race it did not
    lose)."""
    async with _keep_alive_ending(end, kept=1) as (call, connections):
        statuses = [await call(), await call()]
    assert statuses == [200, 200]
    assert connections == [1, 2]


async def test_the_resend_goes_on_a_new_connection_not_another_kept_alive_one() -> None:
    """Connections kept alive since one burst reach the server's keep-alive limit together: when
    the first is found ended, the others are ending too, so the one resend opens a connection
    of its own rather than taking the next kept-alive one (which failed the call as well)."""
    async with _keep_alive_ending(_reset, kept=2) as (call, connections):
        burst = await asyncio.gather(call(), call())
        after = await call()
    assert (list(burst), after) == ([200, 200], 200)
    assert connections == [1, 2, 3]
