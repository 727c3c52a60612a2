"""`Database`: what a process holds of its database, the one object the domains reach it by.

Every way in hands out a `Db` (`db.handle`), the one handle a repository takes:

- `reads`: single-statement reads outside any unit of work (`db.lookups`), and
  `reads_together()` for several on one connection;
- `transaction()`: a unit of work on the SQLAlchemy engine, committed when its block ends
  cleanly, rolled back otherwise; `read_transaction()`, one that only reads (on SQLite it never
  takes or waits for the write lock);
- `run(work)`: the command path's units of work of Core statements, run on the drivers
  themselves (`db.writer`), with `blocking` for a blocking call made inside one.

On SQLite two engines run: one for reads, and one whose one connection takes the write lock
when a transaction begins (`db.database.create_engine`). On PostgreSQL one pool serves both,
its single-statement reads in autocommit.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.core.lanes import Lane
from lisan.db.database import create_engine, database_is_reachable
from lisan.db.handle import Db, EngineDb
from lisan.db.lookups import Lookups
from lisan.db.writer import Work, Writer

T = TypeVar("T")


class Database:
    """The process's database (see the module's docstring)."""

    def __init__(self, database_url: str, *, blocking: Lane | None = None) -> None:
        """`blocking`: where a unit of work's blocking call runs on PostgreSQL (the process's
        lane for blocking work); without one, a lane of its own, closed with it."""
        self._own_lane = blocking is None
        blocking = blocking or Lane("lisan-db-blocking")
        if database_url.startswith("sqlite"):
            self.engine = create_engine(database_url)
            self.write_engine = create_engine(database_url, for_writes=True)
        else:  # one pool; its look-ups skip the transaction (READ COMMITTED gives them nothing)
            self.write_engine = create_engine(database_url)
            self.engine = self.write_engine.execution_options(isolation_level="AUTOCOMMIT")
        self.is_sqlite = self.engine.dialect.name == "sqlite"
        self.reads = Lookups(self.engine)
        self._blocking = blocking
        self.writer = Writer(self.write_engine, blocking=blocking)

    def reads_together(self) -> AbstractAsyncContextManager[Db]:
        """Several single-statement reads on one connection, checked out once (`reads` checks
        one out per statement on PostgreSQL): each still its own snapshot."""
        return self.reads.together()

    @asynccontextmanager
    async def transaction(self) -> AsyncIterator[Db]:
        """A unit of work: committed when the block ends cleanly, rolled back otherwise."""
        async with unit_of_work(self.write_engine) as db:
            yield db

    @asynccontextmanager
    async def read_transaction(self) -> AsyncIterator[Db]:
        """A unit of work that only reads: on SQLite on the read engine, so it never takes
        (or waits for) the write lock; on PostgreSQL a transaction as any (reads never wait
        there)."""
        async with unit_of_work(self.engine if self.is_sqlite else self.write_engine) as db:
            yield db

    async def run(self, work: Work[T]) -> T:
        """`work`'s answer, its statements committed; nothing of it when it raises."""
        return await self.writer.run(work)

    async def blocking(self, call: Callable[..., T], *args: Any) -> T:
        """A blocking call inside a unit of work of `run` (`Writer.blocking`)."""
        return await self.writer.blocking(call, *args)

    async def is_reachable(self) -> bool:
        """Whether a real query answers within the database's bound."""
        return await database_is_reachable(self.engine)

    async def close(self) -> None:
        self.reads.close()
        self.writer.close()
        if self._own_lane:
            self._blocking.close(wait=False)
        await self.write_engine.dispose()
        if self.engine.sync_engine.pool is not self.write_engine.sync_engine.pool:
            await self.engine.dispose()


@asynccontextmanager
async def unit_of_work(engine: AsyncEngine) -> AsyncIterator[Db]:
    """A unit of work on `engine`: committed when the block ends cleanly, rolled back
    otherwise."""
    async with engine.begin() as connection:
        yield EngineDb(connection)
