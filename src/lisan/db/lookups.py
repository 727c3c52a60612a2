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
from contextlib import asynccontextmanager
from typing import Any

from sqlalchemy import Row, Select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.db.inline import InlineSQLite
from lisan.db.prepared import PreparedCache
from lisan.db.raw_postgres import RawPostgres, checked_out

LOOKUP_BUSY_WAIT_S = 0.1

Statement = Select[*tuple[Any, ...]]  # a Core SELECT of any columns


class Lookups:
    """Single-statement reads outside a unit of work (see the module's docstring). A row has
    its columns as attributes, as SQLAlchemy's Row has."""

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

    async def first(self, statement: Statement, parameters: dict[str, Any]) -> Row[Any] | None:
        async with self.connection() as db:
            row: Row[Any] | None = (await db.execute(statement, parameters)).first()
            return row

    async def all(self, statement: Statement, parameters: dict[str, Any]) -> Sequence[Row[Any]]:
        """Every row of one statement: one snapshot, no session, no ORM instances."""
        async with self.connection() as db:
            rows: Sequence[Row[Any]] = (await db.execute(statement, parameters)).all()
            return rows

    @asynccontextmanager
    async def connection(self) -> AsyncIterator[InlineSQLite | RawPostgres]:
        """Where reads run outside a unit of work, for a service that takes an Executor: each
        statement its own snapshot."""
        if self.inline is not None:
            yield self.inline
            return
        async with checked_out(self.engine, self._prepared) as connection:
            yield connection

    def close(self) -> None:
        if self.inline is not None:
            self.inline.close()
