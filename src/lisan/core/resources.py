"""What one server process holds for its lifetime: settings, the engine, the optional Redis."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field

import redis.asyncio as redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from lisan.core.database import create_engine, create_session_factory
from lisan.core.ratelimit import RateLimiter
from lisan.core.settings import Settings

log = logging.getLogger(__name__)

REDIS_TIMEOUT_S = 1.0


@dataclass
class Resources:
    settings: Settings
    # Short reads outside a unit of work (credential look-ups, readiness).
    engine: AsyncEngine
    # Units of work; on SQLite a second engine whose transactions take the write lock up front.
    sessions: async_sessionmaker[AsyncSession]
    redis: redis.Redis | None
    rate_limiter: RateLimiter
    # Read-only units (several reads, no writes): on SQLite they never take the write lock.
    readers: async_sessionmaker[AsyncSession]
    # False while the schema may be behind (the database was down when the server started).
    schema_ready: bool = True
    background: set[asyncio.Task[None]] = field(default_factory=set)

    @classmethod
    def open(cls, settings: Settings) -> Resources:
        engine = create_engine(settings.database_url)
        write_engine = (
            create_engine(settings.database_url, for_writes=True) if settings.is_sqlite else engine
        )
        client = None
        if settings.redis_url:
            client = redis.Redis.from_url(
                settings.redis_url,
                socket_connect_timeout=REDIS_TIMEOUT_S,
                socket_timeout=REDIS_TIMEOUT_S,
            )
        return cls(
            settings,
            engine,
            create_session_factory(write_engine),
            client,
            RateLimiter(settings.redis_url),
            create_session_factory(engine),
        )

    @property
    def write_engine(self) -> AsyncEngine:
        """The engine of `sessions`: for units of work on a bare connection."""
        engine: AsyncEngine = self.sessions.kw["bind"]
        return engine

    async def close(self) -> None:
        for task in list(self.background):
            task.cancel()
        await asyncio.gather(*self.background, return_exceptions=True)
        if self.redis is not None:
            await self.redis.aclose()
        if self.write_engine is not self.engine:
            await self.write_engine.dispose()
        await self.engine.dispose()
