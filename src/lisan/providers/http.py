"""The process's one HTTP client for provider calls: one aiohttp session, bounded by us.

Why aiohttp: in the raw floor for POST /v1/commands (bench/floors/floor_commands.py), at 64
commands in flight, a command cost the server the least CPU with aiohttp; httpx cost more spread
over 8 connection pools and several times as much on one (httpcore re-scans its whole pool
whenever a request starts or ends, and tries to import `sniffio` on every lock it makes). The
figures: docs/benchmarks.md, "Measured choices".

The number of connections is bounded by our own slots, not by the connector's queue: a call
that waits longer than `pool_wait_s` for a slot is `PoolFull` (we are the bottleneck: a quick
503), which a provider slow to accept a connection never is (that is its timeout). The answer
is read as it streams and given up past `limit` bytes, the connection then closed: a server
that sends without end costs at most `limit` bytes of memory. Redirects are not followed. A
proxy named in the environment is used, read once per endpoint (`proxy_for`). A request that
meets a kept-alive connection the server has just closed is sent again once, on a new
connection (`STALE_CONNECTION`).

The TLS context is made once per process: loading the CA bundle is slow enough to be felt by
the call that would pay it (see docs/benchmarks.md, "Measured choices").
"""

from __future__ import annotations

import asyncio
import functools
import ssl
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

import aiohttp
import httpx

from lisan.core import turns

CONNECTIONS = 256  # a command holds one at a time, for one provider call

# A kept-alive connection the server closed or reset as we sent on it (a server's keep-alive is
# often shorter than ours: uvicorn's 5 s against aiohttp's 15): the request never reached it,
# so it is sent once more on a fresh connection, as aiohttp does itself for GET but not for
# POST (a transcription or a plan changes nothing on the server), on the same errors. A refused
# or failed connect (`aiohttp.ClientConnectorError`, a ClientOSError too) is not this, and is
# never retried.
STALE_CONNECTION: tuple[type[Exception], ...] = (
    aiohttp.ServerDisconnectedError,
    aiohttp.ClientOSError,
    aiohttp.ClientConnectionResetError,
)
READ_CHUNK = 64 * 1024


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    headers: Mapping[str, str]  # case-insensitive
    content: bytes


class PoolFull(Exception):
    """No connection of ours came free within the wait."""


class AnswerTooLarge(Exception):
    """An answer went on past its limit."""


class TransportFailed(Exception):
    """The connection failed: refused, reset, closed mid-answer, not HTTP."""


class ProviderHTTP:
    """Every provider call of the process goes through one of these (the app owns it)."""

    def __init__(self, *, connections: int = CONNECTIONS) -> None:
        self._connections = connections
        self._slots = asyncio.Semaphore(connections)
        self._session: aiohttp.ClientSession | None = None
        self._fresh_session: aiohttp.ClientSession | None = None

    def _client(self) -> aiohttp.ClientSession:
        """Made on first use, inside the running loop (aiohttp binds a session to its loop)."""
        if self._session is None:
            self._session = _session(
                aiohttp.TCPConnector(limit=self._connections, limit_per_host=0, ssl=tls_context())
            )
        return self._session

    def _fresh(self) -> aiohttp.ClientSession:
        """A session that never reuses a connection, for the one resend: the pool's other
        kept-alive connections may be closing too (all of them idle since one burst reach the
        server's keep-alive limit at once), and a resend on one of them failed as well."""
        if self._fresh_session is None:
            self._fresh_session = _session(
                aiohttp.TCPConnector(limit=0, force_close=True, ssl=tls_context())
            )
        return self._fresh_session

    async def post(
        self,
        url: str,
        *,
        body: bytes,
        headers: Mapping[str, str],
        pool_wait_s: float,
        limit: int,
    ) -> Answer:
        """POST `body` and read the whole answer. Raises PoolFull, AnswerTooLarge,
        TransportFailed or TimeoutError (aiohttp's own socket timeouts are TimeoutErrors)."""
        try:
            await turns.acquire(self._slots, within_s=pool_wait_s)
        except TimeoutError:
            raise PoolFull from None
        try:
            try:
                return await self._post_once(self._client(), url, body, headers, limit)
            except STALE_CONNECTION as exc:
                if isinstance(exc, aiohttp.ClientConnectorError):
                    raise
                return await self._post_once(self._fresh(), url, body, headers, limit)
        except aiohttp.ClientError as exc:
            if isinstance(exc, TimeoutError):
                raise
            raise TransportFailed(type(exc).__name__) from None
        finally:
            self._slots.release()

    async def _post_once(
        self,
        session: aiohttp.ClientSession,
        url: str,
        body: bytes,
        headers: Mapping[str, str],
        limit: int,
    ) -> Answer:
        async with session.post(
            url, data=body, headers=headers, allow_redirects=False, proxy=proxy_for(url)
        ) as response:
            content = await _read_bounded(response, limit)
            return Answer(response.status, response.headers, content)

    async def aclose(self) -> None:
        for session in (self._session, self._fresh_session):
            if session is not None:
                await session.close()
        self._session = self._fresh_session = None


def _session(connector: aiohttp.TCPConnector) -> aiohttp.ClientSession:
    # No timeout of aiohttp's own: the caller bounds every call.
    return aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=None))


async def _read_bounded(response: aiohttp.ClientResponse, limit: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.content.iter_chunked(READ_CHUNK):
        size += len(chunk)
        if size > limit:
            response.close()  # the rest is never read: the connection is not reused
            raise AnswerTooLarge
        chunks.append(chunk)
    return b"".join(chunks)


@functools.cache
def proxy_for(url: str) -> str | None:
    """The proxy the environment names for `url` (HTTP_PROXY, HTTPS_PROXY, NO_PROXY), as httpx
    read it, once per URL (an endpoint's two or three). Not aiohttp's trust_env: that reads
    ~/.netrc again on every request, a file read on every provider call."""
    parts = urlsplit(url)
    proxy = urllib.request.getproxies().get(parts.scheme)
    if proxy is None or urllib.request.proxy_bypass(parts.hostname or ""):
        return None
    return proxy


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's default context (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when set),
    made once: a context is safe to share between connections."""
    return httpx.create_ssl_context()


def provider_client() -> ProviderHTTP:
    return ProviderHTTP()
