"""Single-statement reads outside a unit of work: the credential look-up every user and admin
route begins with, the hottest statement the service runs, and the lists a route reads whole
in one statement (a user's vocabulary, their apps' grants).

Each statement is written once, in SQLAlchemy Core, beside its domain's other queries. On
SQLite it runs on one connection of its own on the event loop's thread (`db.inline`,
`query_only`): a WAL reader never waits for a writer, so the loop is held for the read alone;
`LOOKUP_BUSY_WAIT_S` bounds the one wait left (another connection recovering the log after a
crash), past which the read fails as any SQLite lock wait does (503). On PostgreSQL the reads
run on a connection of the read engine's pool, spoken to by asyncpg itself
(`db.raw_postgres`: SQLAlchemy's pool and bounds, not its execution path).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from sqlalchemy import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.elements import ClauseElement

from lisan.db.handle import Db
from lisan.db.inline import InlineSQLite
from lisan.db.prepared import PreparedCache, Rows
from lisan.db.raw_postgres import checked_out

LOOKUP_BUSY_WAIT_S = 0.1


class Lookups:
    """Single-statement reads outside a unit of work (see the module's docstring): a `Db`
    whose every statement is its own snapshot. A row has its columns as attributes, as
    SQLAlchemy's Row has."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine  # what the reads run on, on PostgreSQL
        self.inline: InlineSQLite | None = None  # what they run on, on SQLite
        self._prepared = PreparedCache(engine.dialect)
        if engine.dialect.name == "sqlite":
            self.inline = InlineSQLite(
                engine.url.database or ":memory:",
                engine.dialect,
                busy_s=LOOKUP_BUSY_WAIT_S,
                read_only=True,
            )

    @property
    def dialect(self) -> Dialect:
        return self.engine.dialect

    async def execute(
        self, statement: ClauseElement, parameters: dict[str, Any] | None = None, /
    ) -> Rows:
        """One statement, its own snapshot: on SQLite on the reader connection, on PostgreSQL
        on a pooled connection checked out for it alone."""
        if self.inline is not None:
            return await self.inline.execute(statement, parameters)
        async with checked_out(self.engine, self._prepared) as connection:
            return await connection.execute(statement, parameters)

    async def execute_many(
        self, statement: ClauseElement, rows: Sequence[dict[str, Any]], /
    ) -> None:
        raise TypeError("reads outside a unit of work write nothing: use a unit of work")

    def savepoint(self, *, keep: bool = True) -> AbstractAsyncContextManager[None]:
        raise TypeError("reads outside a unit of work have no savepoint: each is its own")

    @asynccontextmanager
    async def together(self) -> AsyncIterator[Db]:
        """Several reads on one connection, checked out once (on SQLite the reader's own):
        each still its own snapshot, outside any transaction."""
        if self.inline is not None:
            yield self.inline
            return
        async with checked_out(self.engine, self._prepared) as connection:
            yield connection

    def close(self) -> None:
        if self.inline is not None:
            self.inline.close()
