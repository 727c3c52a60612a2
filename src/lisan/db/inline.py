"""A sqlite3 connection of the process's own, for Core statements, without aiosqlite.

aiosqlite hands every statement to a thread of its own and back, and SQLAlchemy's execution
path costs more than a small statement does (`db.prepared`). Two of these run: the look-ups'
reader, on the event loop's own thread (a read that finds the database free takes
microseconds; WAL: a reader never waits for a writer, and `busy_s` bounds the one wait left, a
connection recovering the log after a crash), and the command path's writer, whose units of
work each run whole on a thread of their own (`db.writer`), where the wait for the write
lock happens.

A driver error is raised as SQLAlchemy raises it (`DBAPIError.instance`: an IntegrityError for
a broken constraint, an OperationalError for a lock wait or a full disk), with no parameter
values in it, so the error handlers answer it as they answer every other.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Dialect
from sqlalchemy.exc import DBAPIError, StatementError
from sqlalchemy.sql.elements import ClauseElement

from lisan.db.prepared import PreparedCache, Rows
from lisan.db.savepoints import SqlSavepoints


class InlineSQLite(SqlSavepoints):
    """One sqlite3 connection in autocommit (the caller says BEGIN), used whole by one caller
    at a time; `execute` answers as an AsyncConnection's does, and never suspends."""

    def __init__(
        self, path: str, dialect: Dialect, *, busy_s: float, read_only: bool = False
    ) -> None:
        self.dialect = dialect
        self.connection = sqlite3.connect(
            path,
            isolation_level=None,  # no implicit transactions: BEGIN is the caller's
            check_same_thread=False,  # the writer is opened on the loop, used on its own thread
        )
        self._prepared = PreparedCache(dialect)
        self.run("PRAGMA foreign_keys=ON")
        self.set_busy_wait(busy_s)
        if read_only:
            self.run("PRAGMA query_only=ON")
        else:
            self.run("PRAGMA synchronous=NORMAL")  # as the engines' connections (WAL)

    def set_busy_wait(self, seconds: float) -> None:
        self.run(f"PRAGMA busy_timeout={seconds * 1000:.0f}")

    @property
    def in_transaction(self) -> bool:
        return self.connection.in_transaction

    async def execute(
        self, statement: ClauseElement, parameters: dict[str, Any] | None = None
    ) -> Rows:
        """Run one Core statement now, on the caller's thread."""
        prepared = self._prepared.get(statement, parameters or {})
        sql, values = prepared.arguments(parameters or {})
        try:
            cursor = self.connection.execute(sql, values)
            raw = cursor.fetchall() if prepared.row is not None else []
            rowcount = cursor.rowcount
            cursor.close()
        except sqlite3.Error as exc:
            raise _as_sqlalchemy(sql, exc) from exc
        return Rows([prepared.convert(row) for row in raw], rowcount)

    async def execute_many(
        self, statement: ClauseElement, rows: Sequence[dict[str, Any]], /
    ) -> None:
        prepared = self._prepared.get(statement, rows[0])
        sql = prepared.arguments(rows[0])[0]
        try:
            self.connection.executemany(sql, [prepared.arguments(row)[1] for row in rows])
        except sqlite3.Error as exc:
            raise _as_sqlalchemy(sql, exc) from exc

    def run(self, sql: str) -> None:
        """One statement of plain SQL (BEGIN, COMMIT, a PRAGMA), errors as SQLAlchemy's."""
        try:
            self.connection.execute(sql).close()
        except sqlite3.Error as exc:
            raise _as_sqlalchemy(sql, exc) from exc

    async def _plain(self, sql: str) -> None:
        self.run(sql)

    def close(self) -> None:
        self.connection.close()


def _as_sqlalchemy(sql: str, error: sqlite3.Error) -> StatementError:
    # As SQLAlchemy raises it (IntegrityError, OperationalError...), never with the values.
    return DBAPIError.instance(sql, None, error, sqlite3.Error, hide_parameters=True)
