"""What one server process holds for its lifetime: settings, the engine, the optional Redis."""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass, field

import redis.asyncio as redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from lisan.core.lanes import Lane
from lisan.core.ratelimit import RateLimiter
from lisan.core.settings import Settings
from lisan.db.database import create_engine, create_session_factory
from lisan.db.lookups import Lookups
from lisan.db.writer import Writer

log = logging.getLogger(__name__)

REDIS_TIMEOUT_S = 1.0
BLOCKING_THREADS = min(4, (os.cpu_count() or 1) + 1)


@dataclass
class Resources:
    settings: Settings
    # Single-statement reads outside a unit of work (readiness, the tests' own checks). On
    # PostgreSQL they run in autocommit, without a BEGIN and a ROLLBACK around them.
    engine: AsyncEngine
    lookups: Lookups  # single-statement reads: on `engine`, or inline on SQLite
    # Units of work; on SQLite a second engine, with one connection, whose transactions take
    # the write lock up front.
    write_engine: AsyncEngine
    sessions: async_sessionmaker[AsyncSession]  # units of work on `write_engine`
    # Units of work of Core statements (the command path's): on `write_engine`'s pool, or on
    # SQLite on a connection and a thread of their own.
    writer: Writer
    # Read-only units of work: on SQLite on `engine`, so a pure read never takes (or waits
    # for) the write lock; on PostgreSQL the same as `sessions` (reads never wait there).
    read_sessions: async_sessionmaker[AsyncSession]
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
        if settings.is_sqlite:
            engine = create_engine(settings.database_url)
            write_engine = create_engine(settings.database_url, for_writes=True)
        else:  # one pool; its look-ups skip the transaction (READ COMMITTED gives them nothing)
            write_engine = create_engine(settings.database_url)
            engine = write_engine.execution_options(isolation_level="AUTOCOMMIT")
        client = None
        if settings.redis_url:
            client = redis.Redis.from_url(
                settings.redis_url,
                socket_connect_timeout=REDIS_TIMEOUT_S,
                socket_timeout=REDIS_TIMEOUT_S,
            )
        sessions = create_session_factory(write_engine)
        blocking = Lane("lisan-blocking", threads=BLOCKING_THREADS)
        return cls(
            settings,
            engine,
            Lookups(engine),
            write_engine,
            sessions,
            Writer(write_engine, blocking=blocking),
            create_session_factory(engine) if settings.is_sqlite else sessions,
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
        self.lookups.close()
        self.writer.close()
        self.blocking.close(wait=False)
        await self.write_engine.dispose()
        if self.engine.sync_engine.pool is not self.write_engine.sync_engine.pool:
            await self.engine.dispose()
