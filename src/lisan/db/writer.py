"""Units of work of Core statements (the command path's): `await writer.run(work)`.

`work` is an `async def` taking the connection to run its statements on; it is run in one
transaction, committed when it returns and rolled back when it raises. On PostgreSQL that is a
transaction on a connection of the write engine's pool, spoken to by asyncpg itself
(`db.raw_postgres`), and `work` is awaited on the loop.

On SQLite it is one sqlite3 connection of the process's own (`db.inline`), on one thread of
its own (a `core.lanes` lane), and the whole unit of work runs there in one hop: BEGIN IMMEDIATE
(waiting for the write lock in SQLite's busy handler, off the loop), every statement, COMMIT. A
statement on that connection never suspends, so `work` runs to its end in one step on that
thread (`_drive`); it must await nothing else (a unit of work that does is a bug, and fails
loudly), and a blocking call it makes goes through `Writer.blocking`, which runs it in place
there and on a lane's thread on PostgreSQL. Why one hop per unit of work: aiosqlite's hop per
statement and SQLAlchemy's execution path cost a command far more CPU than the statements
do. Statements run on the loop itself cost as little, but each gives the GIL away while the
speech-presence threads want it, and the loop stalls behind them (`python -m bench.commands`;
see docs/benchmarks.md, "Measured choices").

A unit of work first waits its turn in this process (one writer connection, as the write
engine has one), then for SQLite's lock; both waits together are bounded by
`SQLITE_LOCK_WAIT_S`, past which the request answers 503 as a lock wait does. A caller
cancelled meanwhile still waits for the unit of work to end, committed or rolled back whole,
before the connection is given back.
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable, Coroutine
from contextlib import suppress
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.core import metrics, turns
from lisan.core.lanes import Lane
from lisan.db import raw_postgres
from lisan.db.database import SQLITE_LOCK_WAIT_S
from lisan.db.handle import Db
from lisan.db.inline import InlineSQLite
from lisan.db.prepared import PreparedCache

T = TypeVar("T")
Work = Callable[[Db], Coroutine[Any, Any, T]]

_on_writer_thread = threading.local()


class UnitAwaited(RuntimeError):
    """A unit of work on SQLite's writer thread awaited something other than a statement."""


class Writer:
    """Units of work for Core statements on the write engine's database."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        blocking: Lane,
        lock_wait_s: float = SQLITE_LOCK_WAIT_S,
    ) -> None:
        self.engine = engine  # what units of work run on, on PostgreSQL
        self.inline: InlineSQLite | None = None  # what they run on, on SQLite
        self._lock_wait_s = lock_wait_s
        self._prepared = PreparedCache(engine.dialect)
        self._blocking = blocking  # where a unit's blocking call runs on PostgreSQL
        if engine.dialect.name == "sqlite":
            self.inline = InlineSQLite(engine.url.database or ":memory:", engine.dialect, busy_s=0)
            self._turn = asyncio.Lock()
            self._thread = Lane("lisan-writer")

    async def run(self, work: Work[T]) -> T:
        """`work`'s answer, its statements committed; nothing of it when it raises."""
        inline = self.inline
        if inline is None:
            async with raw_postgres.transaction(self.engine, self._prepared) as db:
                return await work(db)
        deadline = time.monotonic() + self._lock_wait_s
        try:
            await turns.acquire(self._turn, within_s=self._lock_wait_s)
        except TimeoutError:
            raise PoolTimeout("no turn at the SQLite write connection in time") from None
        metrics.DB_POOL_IN_USE.inc()
        try:
            done = self._thread.submit(_unit, inline, work, deadline)  # in the request's context
            try:
                return await asyncio.shield(done)
            except asyncio.CancelledError:
                while not done.done():  # it ends within its bounds, committed or not
                    with suppress(asyncio.CancelledError):
                        await asyncio.wait({done})
                if not done.cancelled():
                    done.exception()  # its failure is no news to anyone now: not logged
                raise
        finally:
            metrics.DB_POOL_IN_USE.dec()
            self._turn.release()

    async def blocking(self, call: Callable[..., T], *args: Any) -> T:
        """A blocking call inside a unit of work: in place on SQLite's writer thread (already
        off the loop), on the blocking lane otherwise."""
        if getattr(_on_writer_thread, "active", False):
            return call(*args)
        return await self._blocking.run(call, *args)

    def close(self) -> None:
        if self.inline is not None:
            self._thread.close(wait=True)
            self.inline.close()


def _unit(inline: InlineSQLite, work: Work[T], deadline: float) -> T:
    """On the writer thread: BEGIN IMMEDIATE (waiting for the lock until `deadline`), `work`,
    COMMIT; ROLLBACK when anything raises."""
    _begin(inline, deadline)
    _on_writer_thread.active = True
    try:
        answer = _drive(work(inline))
        inline.run("COMMIT")
    except BaseException:
        if inline.in_transaction:  # SQLite may have ended it itself
            with suppress(DBAPIError):
                inline.run("ROLLBACK")
        raise
    finally:
        _on_writer_thread.active = False
    return answer


def _begin(inline: InlineSQLite, deadline: float) -> None:
    """BEGIN IMMEDIATE, at once when no other connection holds the write lock (the connection
    waits for none: its busy timeout is 0), or else in SQLite's busy handler until `deadline`.
    The lock is nearly always free: setting the wait before and after every BEGIN cost two
    statements a unit of work."""
    try:
        inline.run("BEGIN IMMEDIATE")
        return
    except OperationalError as exc:
        # SQLITE_BUSY, or one of its extended codes (a log being recovered, a snapshot)
        if getattr(exc.orig, "sqlite_errorcode", 0) & 0xFF != sqlite3.SQLITE_BUSY:
            raise
    inline.set_busy_wait(max(deadline - time.monotonic(), 0.0))
    try:
        inline.run("BEGIN IMMEDIATE")
    finally:
        inline.set_busy_wait(0)


def _drive(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine that never suspends to its end, in one step."""
    try:
        awaited = coroutine.send(None)
    except StopIteration as done:
        answer: T = done.value
        return answer
    coroutine.close()
    raise UnitAwaited(f"a unit of work on SQLite's writer thread awaited {awaited!r}")
