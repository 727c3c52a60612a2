"""The process's one HTTP client for provider calls, on connection pools that stay cheap.

httpcore's connection pool re-scans its whole connection list, and for each idle connection
the list again, whenever a request starts or ends: a cost quadratic in the pool's size, which
at a few hundred provider calls in flight took a quarter of the server's CPU. Several small
pools, taken in turn, hold as many connections at a fraction of that cost.

The pools share one TLS context, made once per process: each loading the CA bundle itself cost
about 0.2 s, so 1.7 s of every app's start-up (and half a second of every test's set-up).
"""

from __future__ import annotations

import functools
import itertools
import ssl

import httpx

POOLS = 8
CONNECTIONS_PER_POOL = 32  # 256 in all: a command holds one at a time, for one provider call


class PoolsTransport(httpx.AsyncBaseTransport):
    """Requests go to `pools` independent connection pools in turn."""

    def __init__(self, pools: int = POOLS, connections_per_pool: int = CONNECTIONS_PER_POOL):
        # Keep-alive for every connection a pool may open: closing the surplus after each
        # answer would mean a new TCP connection for most calls under load.
        limits = httpx.Limits(
            max_connections=connections_per_pool,
            max_keepalive_connections=connections_per_pool,
        )
        self._pools = [
            httpx.AsyncHTTPTransport(limits=limits, verify=tls_context()) for _ in range(pools)
        ]
        self._next = itertools.cycle(self._pools)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        return await next(self._next).handle_async_request(request)

    async def aclose(self) -> None:
        for pool in self._pools:
            await pool.aclose()


@functools.cache
def tls_context() -> ssl.SSLContext:
    """httpx's own default context (certifi's bundle, or SSL_CERT_FILE / SSL_CERT_DIR when
    set), made once: a context is safe to share between connections and pools."""
    return httpx.create_ssl_context()


def provider_client() -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=PoolsTransport())
