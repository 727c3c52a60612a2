"""What one server process holds for its lifetime: settings, the database, the optional Redis."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field

import redis.asyncio as redis

from lisan.core.lanes import Lane
from lisan.core.ratelimit import RateLimiter
from lisan.core.settings import Settings
from lisan.db.store import Database

log = logging.getLogger(__name__)

REDIS_TIMEOUT_S = 1.0
BLOCKING_THREADS = min(4, (os.cpu_count() or 1) + 1)


@dataclass
class Resources:
    settings: Settings
    database: Database  # the one way to the database (`db.store`)
    redis: redis.Redis | None
    rate_limiter: RateLimiter
    # Threads for blocking work off the loop (speech presence, a unit of work's file writes on
    # PostgreSQL, migrations at start): a few, as the cores allow.
    blocking: Lane
    # False while the schema may be behind (the database was down when the server started).
    schema_ready: bool = True
    background: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def open(cls, settings: Settings) -> Resources:
        client = None
        if settings.redis_url:
            client = redis.Redis.from_url(
                settings.redis_url,
                socket_connect_timeout=REDIS_TIMEOUT_S,
                socket_timeout=REDIS_TIMEOUT_S,
            )
        blocking = Lane("lisan-blocking", threads=BLOCKING_THREADS)
        return cls(
            settings,
            Database(settings.database_url, blocking=blocking),
            client,
            RateLimiter(settings.redis_url),
            blocking,
        )

    async def close(self) -> None:
        for task in list(self.background):
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.redis is not None:
            await self.redis.aclose()
        await self.database.close()
        self.blocking.close(wait=False)
