"""Rate limits through the `limits` library: Redis storage when configured, memory otherwise.

If Redis fails mid-run the limits fall back to in-process memory (logged once per outage) and
Redis is tried again after a pause, so an outage never stops the service answering.

The memory storage is the library's, its sweep of expired keys made at most once a second
(`swept_memory_storage`): as shipped, every counted hit starts a sweep of every key it holds.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time
from functools import cache

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.errors import StorageError
from starlette.requests import Request

from lisan.core import metrics
from lisan.core.errors import TooManyRequests

log = logging.getLogger(__name__)

REDIS_RETRY_AFTER_S = 30.0
FALLBACK = "rate_limit"  # the `component` of lisan_redis_fallbacks_total
metrics.REDIS_COMPONENTS.declare({FALLBACK})
REDIS_TIMEOUT_S = 0.5
SWEEP_EVERY_S = 1.0  # read at each increment: a test may shorten it


def client_ip(request: Request) -> str:
    """The caller's address: the peer, or the proxy's X-Forwarded-For when serve trusts it."""
    return request.client.host if request.client else "unknown"


@cache
def parse_limit(text: str) -> RateLimitItem:
    return parse(text)


def swept_memory_storage() -> MemoryStorage:
    """The library's memory storage, sweeping its expired keys at most every `SWEEP_EVERY_S`.

    As shipped, each increment schedules a task that walks every key held whenever the last
    one has ended: on a loop that turns between requests that is a sweep of all keys per hit,
    and the in-process limits hold a key or two per client IP and per user, so a hit grew with
    every client seen in the last two windows (`bench.rate_limits`; see docs/benchmarks.md).
    Swept once a second, a hit costs the same whatever the keys held. A sweep only gives back
    memory: a key read after its expiry counts as empty either way.

    The hook is the library's private `__schedule_expiry`, called once per increment, replaced
    on the instance (a subclass would have the library wrap its methods a second time); a test
    holds that it is still the one called, so an upgrade that renames it fails loudly.
    """
    storage = MemoryStorage()
    sweep = storage._MemoryStorage__schedule_expiry  # type: ignore[attr-defined]
    next_sweep = 0.0

    async def at_most_once_a_second() -> None:
        nonlocal next_sweep
        now = time.monotonic()
        if now >= next_sweep:
            next_sweep = now + SWEEP_EVERY_S
            await sweep()

    storage._MemoryStorage__schedule_expiry = at_most_once_a_second  # type: ignore[attr-defined]
    return storage


class RateLimiter:
    """Limits in Redis while it answers, in this process's memory while it does not.

    Every Redis call has one overall bound (REDIS_TIMEOUT_S): redis-py's pool makes new
    connections one at a time under a lock, so a hung Redis would otherwise queue requests
    behind each other, each waiting its own socket timeout. After a failure Redis is marked
    down: no request waits on it for REDIS_RETRY_AFTER_S, and then a single request tries it
    while the others keep counting in memory.
    """

    def __init__(self, redis_url: str | None) -> None:
        self._memory = SlidingWindowCounterRateLimiter(swept_memory_storage())
        self._redis: SlidingWindowCounterRateLimiter | None = None
        if redis_url:
            storage = RedisStorage(
                f"async+{redis_url}",
                implementation="redispy",
                wrap_exceptions=True,
                socket_timeout=REDIS_TIMEOUT_S,
                socket_connect_timeout=REDIS_TIMEOUT_S,
            )
            self._redis = SlidingWindowCounterRateLimiter(storage)
        self._redis_down_until = 0.0
        self._redis_failing = False
        self._redis_failed_at = 0.0  # when the outage began
        self._probing = False  # one request is trying a Redis that was down

    @property
    def redis_failing(self) -> bool:
        """True while limits are counted in memory because Redis failed."""
        return self._redis_failing

    def _redis_to_try(self) -> SlidingWindowCounterRateLimiter | None:
        """Redis, if this request should use it: always while it is up; while it is down,
        never; once its pause is over, for one request at a time."""
        if self._redis is None:
            return None
        if not self._redis_failing:
            return self._redis
        if self._probing or time.monotonic() < self._redis_down_until:
            return None
        self._probing = True
        return self._redis

    async def hit(self, limit: str, *key: str) -> None:
        """Count one request against `limit` for `key`; 429 with Retry-After when it is spent."""
        item = parse_limit(limit)
        redis = self._redis_to_try()
        if redis is not None:
            asked = time.monotonic()
            try:
                async with asyncio.timeout(REDIS_TIMEOUT_S):
                    await self._check(redis, item, key)
            except (StorageError, TimeoutError) as exc:
                self._redis_down(exc)
            else:
                self._redis_up(asked)
                return
            finally:
                self._probing = False
        if self._redis is not None:  # meant for Redis, counted in this process instead
            metrics.labelled(metrics.REDIS_FALLBACKS, FALLBACK).inc()
        await self._check(self._memory, item, key)

    def _redis_down(self, exc: Exception) -> None:
        now = time.monotonic()
        self._redis_down_until = now + REDIS_RETRY_AFTER_S
        if not self._redis_failing:  # once per outage, not once per request
            self._redis_failing = True
            self._redis_failed_at = now
            cause = exc.storage_error if isinstance(exc, StorageError) else exc
            log.error(
                "rate limit storage unavailable; limiting in memory",
                extra={"error": type(cause).__name__},
            )

    def _redis_up(self, asked: float) -> None:
        # Only an answer to a call made since the outage began ends it: a call that was
        # answered just before Redis died may return after a later call saw it fail.
        if self._redis_failing and asked >= self._redis_failed_at:
            self._redis_failing = False
            log.warning("rate limit storage back; limiting in Redis")

    async def hit_in_process(self, limit: str, *key: str) -> None:
        """Like `hit`, counted in this process only: for a shield in front of database work,
        where a Redis round trip would cost as much as what it saves (the bound is then per
        process, not per fleet)."""
        await self._check(self._memory, parse_limit(limit), key)

    @staticmethod
    async def _check(
        limiter: SlidingWindowCounterRateLimiter, item: RateLimitItem, key: tuple[str, ...]
    ) -> None:
        if await limiter.hit(item, *key):
            return
        stats = await limiter.get_window_stats(item, *key)
        retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        raise TooManyRequests(headers={"Retry-After": str(retry_after)})
