"""The engines (their bounds, their pools, what a failing PostgreSQL raises), and the base of
the models."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, TypeVar

from sqlalchemy import Index, MetaData, Table, event, text
from sqlalchemy.engine import Connection, ExceptionContext
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.pool import ConnectionPoolEntry

from lisan.core import metrics
from lisan.db.raw_postgres import SESSION_GONE_SQLSTATES, UNAVAILABLE_SQLSTATES

# Constraint names fixed by convention so Alembic migrations are stable across databases.
NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)


T = TypeVar("T")


def unique_where(name: str, column: str, condition: str) -> Index:
    """A unique index over the rows that meet `condition` only (a partial index), spelt for
    both supported databases."""
    where = text(condition)
    return Index(name, column, unique=True, postgresql_where=where, sqlite_where=where)


def table_of(model: type[Base]) -> Table:
    """A model's table, for Core statements built once on it (the ORM types `__table__` as
    the wider FromClause)."""
    table = model.__table__
    if not isinstance(table, Table):
        raise TypeError(f"{model.__name__} is not mapped to a table")
    return table


# aiosqlite logs every statement with its parameters at DEBUG; user data (vocabulary terms among
# it) must never reach a log, whatever the level.
logging.getLogger("aiosqlite").setLevel(logging.INFO)

# How long a SQLite unit of work waits for the write lock (another process holds it) or, in
# this process, for the one writer connection; then the request answers 503.
SQLITE_LOCK_WAIT_S = 5.0

# The bound on every call to PostgreSQL: the wait for a pooled connection, opening one, and
# each statement (asyncpg's command_timeout: a bound kept by the client, which also holds when
# the server is frozen, where the server's own statement_timeout cannot fire). Past it the
# request answers 503 (lisan.server). 5 s: a statement of a request takes milliseconds, and the
# longest the service runs (a worker's purge batch, a user's cascade delete) well under 1 s; a
# phone that waited 5 s retries anyway, and the 503 tells it to come back in 5 s.
DATABASE_TIMEOUT_S = 5.0
# The server cancels a statement itself a little before the client gives up: on a live server
# (a lock wait, a slow plan) the statement ends cleanly and its connection stays in the pool;
# only a server that does not answer at all reaches the client's bound.
STATEMENT_TIMEOUT_S = DATABASE_TIMEOUT_S - 1.0
# A checkout (the wait for a pooled connection and, when the pool may grow, opening one) is
# bounded at DATABASE_TIMEOUT_S in all, never one bound after the other: under a frozen server a
# request waited 5 s for a slot that a timed-out statement freed, then 5 s more to open a
# connection to the frozen server, and answered after 10 s. Opening a connection to a live
# server takes milliseconds (a TLS handshake across a region, tens), so it gets the smaller part.
CONNECT_TIMEOUT_S = 2.0
POOL_WAIT_S = DATABASE_TIMEOUT_S - CONNECT_TIMEOUT_S
POOL_SIZE = 20  # PostgreSQL connections a process keeps: its most at once


def _sqlite_pragmas(dbapi_connection: DBAPIConnection, _record: ConnectionPoolEntry) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute(f"PRAGMA busy_timeout={SQLITE_LOCK_WAIT_S * 1000:.0f}")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def _sqlite_driver_autocommit(dbapi_connection: Any, _record: ConnectionPoolEntry) -> None:
    # Let SQLAlchemy emit BEGIN itself (the driver's implicit BEGIN is deferred).
    dbapi_connection.isolation_level = None


def _sqlite_begin_immediate(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def create_engine(database_url: str, *, for_writes: bool = False, **kwargs: Any) -> AsyncEngine:
    """An async engine. On SQLite, `for_writes` makes every transaction BEGIN IMMEDIATE: it waits
    for the write lock up front instead of failing when a read snapshot must become a write."""
    # Error messages must not carry bound values (user data) into logs.
    kwargs.setdefault("hide_parameters", True)
    if database_url.startswith("sqlite"):
        _ensure_sqlite_dir(database_url)
        if for_writes and "poolclass" not in kwargs:
            # One writer connection per process: waiting writers queue for it in order, where
            # several connections would each sleep and retry in SQLite's busy handler.
            kwargs.update(pool_size=1, max_overflow=0, pool_timeout=SQLITE_LOCK_WAIT_S)
        engine = create_async_engine(database_url, **kwargs)
        event.listen(engine.sync_engine, "connect", _sqlite_pragmas)
        # SQLAlchemy, not the driver, runs transactions (savepoints work); on the read engine
        # no BEGIN at all: each read is its own snapshot and never waits for the write lock.
        event.listen(engine.sync_engine, "connect", _sqlite_driver_autocommit)
        if for_writes:
            event.listen(engine.sync_engine, "begin", _sqlite_begin_immediate)
        _count_pool_use(engine)
        return engine
    connect_args = {
        "timeout": CONNECT_TIMEOUT_S,
        "command_timeout": DATABASE_TIMEOUT_S,
        "server_settings": {"statement_timeout": f"{STATEMENT_TIMEOUT_S * 1000:.0f}"},
        **kwargs.pop("connect_args", {}),
    }
    if "poolclass" not in kwargs:
        # As many connections as before (10 kept, 10 more on demand), all of them kept: under
        # 32 clients the 10 on demand were opened and closed again continually, each opening a
        # TLS attempt, a fallback and a login, work a kept connection never repeats.
        kwargs.setdefault("pool_size", POOL_SIZE)
        kwargs.setdefault("max_overflow", 0)
        kwargs.setdefault("pool_timeout", POOL_WAIT_S)
    # No pool_pre_ping: it would cost every checkout a round trip, and a dead connection is
    # found by its first statement anyway (a 503, and the pool is recycled).
    engine = create_async_engine(database_url, connect_args=connect_args, **kwargs)
    event.listen(engine.sync_engine, "handle_error", _postgres_unavailable)
    _count_pool_use(engine)
    return engine


def _count_pool_use(engine: AsyncEngine) -> None:
    """`lisan_db_pool_connections_in_use`: connections out of this engine's pool."""

    def checked_out(*_: Any) -> None:
        metrics.DB_POOL_IN_USE.inc()

    def checked_in(*_: Any) -> None:
        metrics.DB_POOL_IN_USE.dec()

    event.listen(engine.sync_engine.pool, "checkout", checked_out)
    event.listen(engine.sync_engine.pool, "checkin", checked_in)


def _postgres_unavailable(context: ExceptionContext) -> BaseException | None:
    """What a PostgreSQL that is stopping, starting, frozen or full raises becomes a 503 (an
    OperationalError or a TimeoutError, see lisan.server), never a 500; and a connection left in
    an unknown state is discarded, never returned to the pool."""
    from asyncpg.exceptions import InternalClientError

    error = context.original_exception
    if isinstance(error, TimeoutError):
        # The client's bound ran out: the server may still be running the statement, or
        # answer it later. Only this connection goes (the others may be healthy), closed at
        # once: SQLAlchemy's graceful close would wait 2 s more for a server that does not
        # answer.
        context.is_disconnect = True
        context.invalidate_pool_on_disconnect = False
        connection = context.connection
        if connection is not None and not (connection.closed or connection.invalidated):
            driver_connection = connection.connection.driver_connection
            if driver_connection is not None:
                driver_connection.terminate()
        return None
    cause = error.__cause__
    sqlstate = str(getattr(cause, "sqlstate", None) or "")
    if isinstance(cause, InternalClientError) or sqlstate.startswith(SESSION_GONE_SQLSTATES):
        # Ended by the server, or a protocol state asyncpg did not expect (a session that
        # ended mid-operation): the connection cannot be used again.
        context.is_disconnect = True
    elif not sqlstate.startswith(UNAVAILABLE_SQLSTATES):
        return None
    if isinstance(error, OperationalError):
        return None
    return OperationalError(
        context.statement,
        context.parameters,
        error,
        hide_parameters=True,
        connection_invalidated=context.is_disconnect,
    )


def _ensure_sqlite_dir(database_url: str) -> None:
    from pathlib import Path

    from sqlalchemy.engine import make_url

    database = make_url(database_url).database
    if database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)


async def database_is_reachable(engine: AsyncEngine, timeout_s: float = DATABASE_TIMEOUT_S) -> bool:
    """True when a real query answers within the timeout. The answer comes at the timeout even
    when the check does not: cancelling a check held by a frozen server would wait once more
    while the connection is handed back, so the check is left to end by the driver's own
    bounds (a checkout, then the statement) and only its answer is given up."""
    check = asyncio.ensure_future(_select_one(engine))
    check.add_done_callback(_consume_outcome)
    try:
        await asyncio.wait_for(asyncio.shield(check), timeout_s)
    except Exception:
        return False
    return True


async def _select_one(engine: AsyncEngine) -> None:
    async with engine.connect() as connection:
        await connection.execute(text("SELECT 1"))


def _consume_outcome(check: asyncio.Future[None]) -> None:
    # A check given up on still ends; its failure is the answer already given, not a new one.
    if not check.cancelled():
        check.exception()
