"""Core statements on a pooled PostgreSQL connection's own asyncpg connection.

The pool stays SQLAlchemy's (its bounds, its connect and statement timeouts, its metrics);
what this skips is SQLAlchemy's execution path and the greenlet switch of each statement,
which cost more than the statement (`python -m bench.commands`), and the engine `Connection`
made around each checkout. A statement is compiled once (`db.prepared`) and sent with
asyncpg's own prepared-statement cache.

Failures are raised as SQLAlchemy raises them, so the error handlers and the services answer
them as before: a broken constraint is an IntegrityError; a server that is down, stopping,
full or frozen (a connection error, SQLSTATE 08, 53 or 57, the client's statement bound) is an
OperationalError (503). A connection left in an unknown state (ended by the server, or cut
off mid-statement by the bound or by a cancelled request) is terminated at once and
invalidated, never handed back to the pool: as `db.database` does for the engine's own.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Sequence
from contextlib import asynccontextmanager, suppress
from typing import Any, TypeVar

import asyncpg
from sqlalchemy.engine import Connection
from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError, StatementError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql.elements import ClauseElement
from sqlalchemy.util import greenlet_spawn

from lisan.db.prepared import PreparedCache, Rows
from lisan.db.savepoints import SqlSavepoints

T = TypeVar("T")

# SQLSTATEs of a PostgreSQL that cannot serve now, here and for the engine (db.database): 08
# connection exception, 53 insufficient resources (too many connections), 57 operator
# intervention (shutting down, starting up, statement timeout). 08 and 57P (the server ended
# the session) leave no usable connection.
UNAVAILABLE_SQLSTATES = ("08", "53", "57")
SESSION_GONE_SQLSTATES = ("08", "57P")
_CONNECTION_GONE = (
    OSError,
    TimeoutError,
    asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError,
    asyncpg.InternalClientError,
)


class RawPostgres(SqlSavepoints):
    """Statements on one checked-out connection; `execute` answers as an AsyncConnection's."""

    def __init__(self, driver: asyncpg.Connection, cache: PreparedCache) -> None:
        self.driver = driver
        self.dialect = cache.dialect
        self.unusable = False  # ended by the server, or cut off mid-statement: to discard
        self._cache = cache

    async def execute(
        self, statement: ClauseElement, parameters: dict[str, Any] | None = None
    ) -> Rows:
        prepared = self._cache.get(statement, parameters or {})
        sql, values = prepared.arguments(parameters or {})
        if prepared.row is None:
            status = await self._call(sql, self.driver.execute(sql, *values))
            return Rows([], _rowcount(status))
        records = await self._call(sql, self.driver.fetch(sql, *values))
        return Rows([prepared.convert(record) for record in records], len(records))

    async def execute_many(
        self, statement: ClauseElement, rows: Sequence[dict[str, Any]], /
    ) -> None:
        prepared = self._cache.get(statement, rows[0])
        sql = prepared.arguments(rows[0])[0]
        arguments = [prepared.arguments(row)[1] for row in rows]
        await self._call(sql, self.driver.executemany(sql, arguments))

    async def run(self, sql: str) -> None:
        """Plain SQL (BEGIN, COMMIT), errors as SQLAlchemy's."""
        await self._call(sql, self.driver.execute(sql))

    _plain = run

    async def _call(self, sql: str, call: Awaitable[T]) -> T:
        try:
            return await call
        except asyncio.CancelledError:
            self.unusable = True
            raise
        except Exception as exc:
            error = _as_sqlalchemy(sql, exc)
            self.unusable = self.unusable or error.connection_invalidated
            raise error from exc


@asynccontextmanager
async def checked_out(engine: AsyncEngine, cache: PreparedCache) -> AsyncIterator[RawPostgres]:
    """A connection of `engine`'s pool, spoken to raw; discarded when left unusable.

    Taken from the pool itself (`Engine.raw_connection`: the pool's bounds, its checkout and
    checkin events), not through an engine `Connection`, whose construction, events and
    greenlet hops cost more than the checkout itself, four times a command (see
    docs/benchmarks.md, "Measured choices"). A failure to connect is raised as
    `engine.connect()` raises it, through the engine's error handlers."""
    sync_engine = engine.sync_engine
    try:
        pooled = await greenlet_spawn(sync_engine.raw_connection)
    except sync_engine.dialect.loaded_dbapi.Error as exc:
        # What `Connection.__init__` does with the same failure (SQLAlchemy's own step): the
        # engine's `handle_error` hooks, then the error wrapped as SQLAlchemy's.
        Connection._handle_dbapi_exception_noconnection(exc, sync_engine.dialect, sync_engine)
        raise
    try:
        driver = pooled.driver_connection
        assert isinstance(driver, asyncpg.Connection)
        db = RawPostgres(driver, cache)
        try:
            yield db
        finally:
            if db.unusable:
                await _discard(pooled, driver)
    finally:
        await greenlet_spawn(pooled.close)  # back to the pool (or closed, once invalidated)


@asynccontextmanager
async def transaction(engine: AsyncEngine, cache: PreparedCache) -> AsyncIterator[RawPostgres]:
    """A unit of work on a pooled connection: committed when the caller finishes cleanly,
    rolled back otherwise."""
    async with checked_out(engine, cache) as db:
        await db.run("BEGIN")
        try:
            yield db
        except BaseException:
            if not db.unusable:
                with suppress(DBAPIError):
                    await db.run("ROLLBACK")
            raise
        await db.run("COMMIT")


async def _discard(pooled: PoolProxiedConnection, driver: asyncpg.Connection) -> None:
    # Terminated first: SQLAlchemy's close of a connection whose server does not answer waits
    # 2 s more; then invalidated, so the pool opens a new one in its place.
    driver.terminate()
    with suppress(Exception):
        await greenlet_spawn(pooled.invalidate)


def _rowcount(status: str) -> int:
    """asyncpg's command status ("UPDATE 3", "DELETE 0", "INSERT 0 1"): the rows it touched."""
    last = status.rsplit(" ", 1)[-1]
    return int(last) if last.isdigit() else 0


def _as_sqlalchemy(sql: str, error: Exception) -> StatementError:
    """As SQLAlchemy's asyncpg dialect and `db.database` raise it, never with the values."""
    sqlstate = str(getattr(error, "sqlstate", None) or "")
    if isinstance(error, asyncpg.IntegrityConstraintViolationError):
        return IntegrityError(sql, None, error, hide_parameters=True)
    gone = isinstance(error, _CONNECTION_GONE) or sqlstate.startswith(SESSION_GONE_SQLSTATES)
    if gone or sqlstate.startswith(UNAVAILABLE_SQLSTATES):
        return OperationalError(sql, None, error, hide_parameters=True, connection_invalidated=gone)
    return DBAPIError(sql, None, error, hide_parameters=True)
