"""The voice provider's circuit breaker (purgatory): after `threshold` provider failures in a
row, calls fail at once with ProviderUnavailable, without a request, until `ttl_s` has passed;
then calls go through again (half-open) and the first outcome closes or re-opens the circuit.

Only ProviderUnavailable and ProviderTimeout are failures: a provider that answers in a bad
shape is up, and a cancelled call says nothing about the provider. With LISAN_REDIS_URL the
state is shared by every process through Redis; Redis is never required: when it cannot be
reached the breaker keeps its state in this process.
"""

from __future__ import annotations

import contextlib
import logging
import math
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from purgatory import AsyncCircuitBreakerFactory, AsyncRedisUnitOfWork
from purgatory.domain.model import ExcludeType, OpenedState
from redis.exceptions import RedisError

from lisan.providers.base import ProviderTimeout, ProviderUnavailable

log = logging.getLogger(__name__)

T = TypeVar("T")

CIRCUIT = "lisan.voice-provider"
REDIS_TIMEOUT_S = 1.0  # a slow Redis must not hold up a command for long
_REDIS_DOWN = (RedisError, OSError)


def _is_not_a_failure(exc: BaseException) -> bool:
    return not isinstance(exc, ProviderUnavailable | ProviderTimeout)


# purgatory counts every exception unless excluded; an excluded one counts as a success.
_NOT_FAILURES: ExcludeType = [(BaseException, _is_not_a_failure)]


class ProviderBreaker:
    def __init__(self, redis_url: str | None, *, threshold: int = 5, ttl_s: float = 30.0) -> None:
        self._redis_url = redis_url
        self._threshold = threshold
        self._ttl_s = ttl_s
        self._factory = self._new_factory(None)
        self._redis_uow: AsyncRedisUnitOfWork | None = None

    @property
    def shared(self) -> bool:
        """True while the state lives in Redis (shared by every process)."""
        return self._redis_uow is not None

    async def start(self) -> None:
        """Connect to Redis when configured; on failure stay in memory (logged once)."""
        if self._redis_url is None or self._redis_uow is not None:
            return
        uow = AsyncRedisUnitOfWork(_with_timeouts(self._redis_url))
        factory = self._new_factory(uow)
        try:
            await factory.initialize()
            await factory.get_breaker(CIRCUIT)  # reaches Redis now rather than on a command
        except _REDIS_DOWN as exc:
            await _close(uow)
            log.warning(
                "Redis unreachable: the voice provider circuit breaker keeps its state in "
                "this process",
                extra={"error": type(exc).__name__},
            )
            return
        self._factory, self._redis_uow = factory, uow

    async def aclose(self) -> None:
        uow, self._redis_uow = self._redis_uow, None
        self._factory = self._new_factory(None)
        if uow is not None:
            await _close(uow)

    async def call(self, operation: Callable[[], Awaitable[T]]) -> T:
        """Run one provider call through the circuit."""
        factory = self._factory
        try:
            breaker = await factory.get_breaker(CIRCUIT)
        except _REDIS_DOWN as exc:
            await self._lose_redis(factory, exc)
            return await self.call(operation)
        failure: BaseException | None = None
        try:
            async with breaker:
                try:
                    result = await operation()
                except BaseException as exc:
                    failure = exc
                    raise
        except OpenedState as opened:
            raise ProviderUnavailable(
                "voice provider circuit open", retry_after_s=self._retry_after_s(opened)
            ) from None
        except _REDIS_DOWN as exc:
            if exc is failure:
                raise
            # The call itself ran; only recording its outcome in Redis failed.
            await self._lose_redis(factory, exc)
            if failure is not None:
                raise failure from None
        return result

    def _retry_after_s(self, opened: OpenedState) -> int:
        """Seconds until the circuit half-opens, at least 1."""
        remaining = opened.opened_at + self._ttl_s - time.time()
        return max(1, min(math.ceil(self._ttl_s), math.ceil(remaining)))

    async def _lose_redis(self, factory: AsyncCircuitBreakerFactory, exc: BaseException) -> None:
        """Redis failed while running: keep the breaker in memory for the rest of the process."""
        if factory is not self._factory:  # another call already switched
            return
        uow, self._redis_uow = self._redis_uow, None
        self._factory = self._new_factory(None)
        log.warning(
            "Redis failed: the voice provider circuit breaker keeps its state in this process",
            extra={"error": type(exc).__name__},
        )
        if uow is not None:
            await _close(uow)

    def _new_factory(self, uow: AsyncRedisUnitOfWork | None) -> AsyncCircuitBreakerFactory:
        return AsyncCircuitBreakerFactory(
            default_threshold=self._threshold,
            default_ttl=self._ttl_s,
            exclude=_NOT_FAILURES,
            uow=uow,
        )


def _with_timeouts(redis_url: str) -> str:
    """purgatory builds its client from the URL alone: bound its waits there unless the URL
    already does."""
    parts = urlsplit(redis_url)
    query = dict(parse_qsl(parts.query))
    query.setdefault("socket_connect_timeout", str(REDIS_TIMEOUT_S))
    query.setdefault("socket_timeout", str(REDIS_TIMEOUT_S))
    return urlunsplit(parts._replace(query=urlencode(query)))


async def _close(uow: AsyncRedisUnitOfWork) -> None:
    redis = getattr(uow.contexts, "redis", None)
    if redis is not None:
        with contextlib.suppress(*_REDIS_DOWN):  # closing a connection to a Redis that is gone
            await redis.aclose()
