"""`Db`: the one handle every repository function takes, always as `db`.

A handle runs Core statements and answers as SQLAlchemy's results are read. What stands
behind it is this package's business, never a domain's: a unit of work on the SQLAlchemy
engine (`EngineDb`), the command path's units of work on the drivers themselves
(`db.writer`: asyncpg on PostgreSQL, sqlite3 on SQLite), or single-statement reads outside any
unit of work (`db.lookups`). Which one runs a statement was chosen where it was measured to
matter (see docs/benchmarks.md, "Measured choices"); a repository's statements run on all.

Rows come back as rows, never as ORM instances tracked by a session: a domain that wants its
model's attributes typed reads a row as a record (`as_record`), and a change is written by an
UPDATE, never by changing a record.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy import Dialect, Insert, Table, insert, inspect
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import CursorResult
from sqlalchemy.ext.asyncio import AsyncConnection
from sqlalchemy.sql.elements import ClauseElement

from lisan.db.database import Base, table_of

RecordT = TypeVar("RecordT", bound=Base)
T = TypeVar("T")


class Result(Protocol):
    """What a statement answers, read as SQLAlchemy's results are read."""

    @property
    def rowcount(self) -> int: ...

    def __iter__(self) -> Iterator[Any]: ...

    def all(self) -> Sequence[Any]: ...

    def first(self) -> Any | None: ...

    def scalars(self) -> Iterable[Any]: ...

    def scalar_one(self) -> Any: ...

    def scalar_one_or_none(self) -> Any | None: ...


class Db(Protocol):
    """Where a repository's statements run (see the module's docstring)."""

    @property
    def dialect(self) -> Dialect: ...

    async def execute(
        self, statement: ClauseElement, parameters: dict[str, Any] | None = None, /
    ) -> Result: ...

    async def execute_many(
        self, statement: ClauseElement, rows: Sequence[dict[str, Any]], /
    ) -> None:
        """One INSERT, UPDATE or DELETE for each of `rows` (each with the same keys), compiled
        once and sent as one batch."""
        ...

    def savepoint(self, *, keep: bool = True) -> AbstractAsyncContextManager[None]:
        """A part of the unit of work that fails alone: rolled back when the block raises
        (the error goes on), and when `keep` is False even when it does not; the unit of
        work goes on either way."""
        ...


class EngineDb:
    """A unit of work on a connection of the SQLAlchemy engine (`Database.transaction`)."""

    __slots__ = ("_connection", "dialect")

    def __init__(self, connection: AsyncConnection) -> None:
        self._connection = connection
        self.dialect = connection.dialect

    async def execute(
        self, statement: ClauseElement, parameters: dict[str, Any] | None = None, /
    ) -> CursorResult[Any]:
        result: CursorResult[Any] = await self._connection.execute(
            statement,  # type: ignore[call-overload]
            parameters,
        )
        return result

    async def execute_many(
        self, statement: ClauseElement, rows: Sequence[dict[str, Any]], /
    ) -> None:
        await self._connection.execute(statement, list(rows))  # type: ignore[call-overload]

    @asynccontextmanager
    async def savepoint(self, *, keep: bool = True) -> AsyncIterator[None]:
        nested = await self._connection.begin_nested()
        try:
            yield
        except BaseException:
            await nested.rollback()
            raise
        if keep:
            await nested.commit()
        else:
            await nested.rollback()


class PerDialect(Generic[T]):
    """A statement built once for each supported database, from that dialect's `insert` (whose
    ON CONFLICT clauses differ); built at import, so the hot path only looks it up."""

    def __init__(self, build: Callable[[Callable[..., Any]], T]) -> None:
        self._built = {"postgresql": build(postgresql.insert), "sqlite": build(sqlite.insert)}

    def on(self, db: Db) -> T:
        return self._built[db.dialect.name]


_INSERTS: dict[Table, Insert] = {}


async def insert_record(db: Db, record: RecordT) -> RecordT:
    """Insert `record` as its table's row. A column left unset takes its Python default, set
    on the record too (its id, say), so the record reads as the row written."""
    table = table_of(type(record))
    given = inspect(record).dict
    values: dict[str, Any] = {}
    for column in table.columns:
        if column.key in given:
            values[column.key] = given[column.key]
            continue
        default = column.default
        if default is None:
            continue
        value = default.arg(None) if default.is_callable else default.arg  # type: ignore[attr-defined]
        setattr(record, column.key, value)
        values[column.key] = value
    statement = _INSERTS.get(table)
    if statement is None:
        statement = _INSERTS[table] = insert(table)
    await db.execute(statement, values)
    return record


def as_record(model: type[RecordT], row: Any) -> RecordT:
    """A row of `model`'s table (every column selected) as a `model`: typed attributes, and
    nothing tracked."""
    return model(**row._asdict())
