"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import BigInteger, DateTime, Integer
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator


class UtcDateTime(TypeDecorator[datetime]):
    """Aware UTC datetimes in and out (SQLite keeps no offset; PostgreSQL uses timestamptz)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        value = _in_utc(value)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def bind_processor(self, dialect: Dialect) -> Callable[[Any], Any] | None:
        if dialect.name == "sqlite":
            return _sqlite_text_of_utc
        return super().bind_processor(dialect)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None or value.tzinfo is UTC:  # PostgreSQL's drivers answer in UTC
            return value
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)

    def result_processor(
        self, dialect: Dialect, coltype: Any
    ) -> Callable[[Any], datetime | None] | None:
        if dialect.name == "sqlite":
            return _utc_from_sqlite_text
        return super().result_processor(dialect, coltype)


def _sqlite_text_of_utc(value: datetime | None) -> str | None:
    """The text SQLAlchemy's chain writes to SQLite (`process_bind_param`, then its DATETIME's
    `%Y-%m-%d %H:%M:%S.%f`), in one step: `isoformat` with microseconds is the same text,
    made in one call where the chain makes two; a command writes six of them."""
    if value is None:
        return None
    return _in_utc(value).replace(tzinfo=None).isoformat(" ", "microseconds")


def _in_utc(value: datetime) -> datetime:
    """The same instant in UTC; a naive datetime is refused, never guessed."""
    if value.tzinfo is None:
        raise ValueError("naive datetime given to a UTC column")
    return value.astimezone(UTC)


def _utc_from_sqlite_text(value: str | None) -> datetime | None:
    """SQLite's text read as `process_result_value` reads SQLAlchemy's parse of it, in one
    step: the text SQLAlchemy writes has no offset, and parsing it with UTC's offset appended
    makes the aware datetime in the parse, where `replace(tzinfo=UTC)` after it would build a
    second one (see docs/benchmarks.md, "Measured choices"); a list of 50 vocabulary terms
    reads 100 of them. Text that carries an offset of its own is read as before."""
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value + "+00:00")
        if parsed.tzinfo is UTC:
            return parsed
    except ValueError:
        pass
    parsed = datetime.fromisoformat(value)
    return parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)


def utcnow() -> datetime:
    return datetime.now(UTC)


# An auto-incrementing key: BIGINT on PostgreSQL, INTEGER on SQLite (only an INTEGER PRIMARY KEY
# is SQLite's rowid alias, and so auto-increments).
SequenceKey = BigInteger().with_variant(Integer(), "sqlite")
