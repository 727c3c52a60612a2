"""The circuit breaker's side of Redis: how long a step may wait for it, what counts as Redis
being down, and how connections to a lost Redis are bounded and closed."""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from purgatory import AsyncCircuitBreakerFactory, AsyncRedisUnitOfWork
from redis.exceptions import RedisError

REDIS_TIMEOUT_S = 1.0  # a slow Redis must not hold up a command for long
REDIS_DOWN = (RedisError, OSError, TimeoutError)


def with_timeouts(redis_url: str) -> str:
    """purgatory builds its client from the URL alone: bound its waits there unless the URL
    already does."""
    parts = urlsplit(redis_url)
    query = dict(parse_qsl(parts.query))
    query.setdefault("socket_connect_timeout", str(REDIS_TIMEOUT_S))
    query.setdefault("socket_timeout", str(REDIS_TIMEOUT_S))
    return urlunsplit(parts._replace(query=urlencode(query)))


def in_redis(factory: AsyncCircuitBreakerFactory) -> bool:
    return isinstance(factory.uow, AsyncRedisUnitOfWork)


def consume(task: asyncio.Future[Any]) -> None:
    """A step left behind ends as it may; its outcome is no one's (and never 'never retrieved')."""
    if not task.cancelled():
        task.exception()


async def close_redis(uow: AsyncRedisUnitOfWork) -> None:
    redis = getattr(uow.contexts, "redis", None)
    if redis is not None:
        with contextlib.suppress(*REDIS_DOWN):  # closing a connection to a Redis that is gone
            await redis.aclose()
