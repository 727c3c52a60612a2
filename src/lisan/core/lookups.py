"""Single-statement reads outside a unit of work: the credential look-up every user and admin
route begins with, the hottest statement the service runs, and the lists a route reads whole
in one statement (a user's vocabulary, their apps' grants).

Each statement is written once, in SQLAlchemy Core, beside its domain's other queries; here it
is compiled once per dialect (`_Prepared`: its SQL, the order of its parameters and SQLAlchemy's
own converters for each parameter and column) and run on the driver itself. On SQLite that is
one sqlite3 connection used on the event loop's own thread: aiosqlite hands every statement to
a thread of its own and back, and SQLAlchemy's execute path costs more than the read (`python
-m bench.routes`, the token look-up: 658 us of CPU through the async engine, 108 us through a
synchronous SQLAlchemy connection, 8 us in bare sqlite3). A WAL reader never waits for a
writer, so the loop is held for the read alone; `LOOKUP_BUSY_WAIT_S` bounds the one wait left
(another connection recovering the log after a crash), past which the read fails as any SQLite
lock wait does (503): a driver error is raised as SQLAlchemy's (`DBAPIError.instance`), so the
error handlers answer it as they answer every other. On PostgreSQL the reads run through the
read engine's pool of autocommit connections and its error handling (a statement there waits
on the network, not on the loop).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from sqlalchemy import Dialect, Row, Select
from sqlalchemy.exc import DBAPIError
from sqlalchemy.ext.asyncio import AsyncEngine

LOOKUP_BUSY_WAIT_S = 0.1

Convert = Callable[[Any], Any] | None
Statement = Select[*tuple[Any, ...]]  # a Core SELECT of any columns


@dataclass(frozen=True, slots=True)
class _Prepared:
    """One statement compiled for SQLite's driver, with SQLAlchemy's converters."""

    sql: str
    names: tuple[str, ...]  # bind parameters, in the order the driver takes them
    binds: tuple[Convert, ...]
    results: tuple[Convert, ...]
    row: type[tuple[Any, ...]]  # a named tuple of the statement's column keys

    @classmethod
    def of(cls, statement: Statement, dialect: Dialect) -> _Prepared:
        compiled = statement.compile(dialect=dialect)
        names = tuple(compiled.positiontup or ())
        binds = tuple(
            compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            for name in names
        )
        columns = list(statement.selected_columns)
        results = tuple(
            column.type.dialect_impl(dialect).result_processor(dialect, None) for column in columns
        )
        keys = [column.key for column in columns]
        row = NamedTuple("LookupRow", [(key, Any) for key in keys])  # type: ignore[misc]
        return cls(str(compiled), names, binds, results, row)

    def arguments(self, parameters: dict[str, Any]) -> tuple[Any, ...]:
        values = (parameters[name] for name in self.names)
        return tuple(
            value if convert is None else convert(value)
            for convert, value in zip(self.binds, values, strict=True)
        )

    def convert(self, raw: tuple[Any, ...]) -> Any:
        return self.row._make(  # type: ignore[attr-defined]
            value if convert is None else convert(value)
            for convert, value in zip(self.results, raw, strict=True)
        )


class Lookups:
    """Single-statement reads outside a unit of work (see the module's docstring). A row has
    its columns as attributes, as SQLAlchemy's Row has."""

    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine  # what the reads run on, on PostgreSQL
        self.inline: sqlite3.Connection | None = None  # what they run on, on SQLite
        self._prepared: dict[Statement, _Prepared] = {}  # a Core SELECT hashes by identity
        if engine.dialect.name == "sqlite":
            self.inline = sqlite3.connect(
                engine.url.database or ":memory:",
                isolation_level=None,  # no transaction: each read its own snapshot
                check_same_thread=False,  # used on one thread at a time, whole
            )
            self.inline.execute(f"PRAGMA busy_timeout={LOOKUP_BUSY_WAIT_S * 1000:.0f}")
            self.inline.execute("PRAGMA query_only=ON")

    async def first(self, statement: Statement, parameters: dict[str, Any]) -> Row[Any] | None:
        if self.inline is not None:
            rows = self._inline(statement, parameters, first=True)
            return rows[0] if rows else None
        async with self.engine.connect() as connection:
            return (await connection.execute(statement, parameters)).first()

    async def all(self, statement: Statement, parameters: dict[str, Any]) -> Sequence[Row[Any]]:
        """Every row of one statement: one snapshot, no session, no ORM instances."""
        if self.inline is not None:
            rows: Sequence[Row[Any]] = self._inline(statement, parameters, first=False)
            return rows
        async with self.engine.connect() as connection:
            return (await connection.execute(statement, parameters)).all()

    def _inline(
        self, statement: Statement, parameters: dict[str, Any], *, first: bool
    ) -> list[Any]:
        assert self.inline is not None
        prepared = self._prepare(statement)
        try:
            cursor = self.inline.execute(prepared.sql, prepared.arguments(parameters))
            raw = cursor.fetchmany(1) if first else cursor.fetchall()
            cursor.close()
        except sqlite3.Error as exc:
            # As SQLAlchemy raises it (an OperationalError for a lock wait), never the values.
            raise DBAPIError.instance(
                prepared.sql, None, exc, sqlite3.Error, hide_parameters=True
            ) from exc
        return [prepared.convert(row) for row in raw]

    def _prepare(self, statement: Statement) -> _Prepared:
        """Compiled on first use; the statements are module constants, so few and lasting."""
        prepared = self._prepared.get(statement)
        if prepared is None:
            prepared = self._prepared[statement] = _Prepared.of(statement, self.engine.dialect)
        return prepared

    def close(self) -> None:
        if self.inline is not None:
            self.inline.close()
