"""Single-statement reads outside a unit of work: the credential look-up every user and admin
route begins with, the hottest statement the service runs, and the lists a route reads whole
in one statement (a user's vocabulary, their apps' grants)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Engine, Executable, Row, event
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import ConnectionPoolEntry


class Lookups:
    """Single-statement reads outside a unit of work: the credential look-up every user and
    admin route begins with. On PostgreSQL, on the pool's autocommit connections (no BEGIN or
    ROLLBACK around them). On SQLite, on a synchronous connection used on the event loop's own
    thread: aiosqlite hands every statement to a thread of its own and back (`python -m
    bench.routes`: the token look-up cost 658 us of CPU through the async engine against 108
    through this one, and 8 in bare sqlite3). A WAL reader never waits for a writer, so the
    loop is held for the read alone; `LOOKUP_BUSY_WAIT_S` bounds the one wait left (another
    connection recovering the log after a crash), past which the read fails as any SQLite lock
    wait does (503)."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine  # what `first` runs on, on PostgreSQL
        self.inline: Engine | None = None  # what it runs on, on SQLite
        if engine.dialect.name == "sqlite":
            self.inline = create_sync_engine(
                engine.url.set(drivername="sqlite+pysqlite"),
                hide_parameters=True,
                # Used on one thread at a time, whole: a statement never spans two threads.
                connect_args={"check_same_thread": False},
            )
            event.listen(self.inline, "connect", _sqlite_lookup_pragmas)

    async def first(self, statement: Executable, parameters: dict[str, Any]) -> Row[Any] | None:
        if self.inline is not None:
            with self.inline.connect() as connection:
                return connection.execute(statement, parameters).first()
        async with self.engine.connect() as connection:
            return (await connection.execute(statement, parameters)).first()

    async def all(self, statement: Executable, parameters: dict[str, Any]) -> Sequence[Row[Any]]:
        """Every row of one statement: one snapshot, no session, no ORM instances."""
        if self.inline is not None:
            with self.inline.connect() as connection:
                return connection.execute(statement, parameters).all()
        async with self.engine.connect() as connection:
            return (await connection.execute(statement, parameters)).all()

    def close(self) -> None:
        if self.inline is not None:
            self.inline.dispose()


LOOKUP_BUSY_WAIT_S = 0.1


def _sqlite_lookup_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute(f"PRAGMA busy_timeout={LOOKUP_BUSY_WAIT_S * 1000:.0f}")
    cursor.execute("PRAGMA query_only=ON")
    cursor.close()
