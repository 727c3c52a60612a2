"""`UtcDateTime`: every datetime read back is aware and in UTC, whatever the database keeps and
however it was written (SQLite keeps text without an offset; PostgreSQL a timestamptz)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import cast

import pytest
from sqlalchemy import Column, Integer, MetaData, Table, insert, select, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.types import TypeDecorator

from lisan.db.types import UtcDateTime

# Texts SQLite may hold in a UtcDateTime column: SQLAlchemy's own, and what hand-written SQL or
# an older writer could have left (no microseconds, an offset, a `T`, `Z`, a bare date).
SQLITE_TEXTS = [
    "2026-11-25 06:00:00.123456",
    "2026-11-25 06:00:00.000000",
    "2026-11-25 06:00:00",
    "2026-11-25 06:00",
    "2026-11-25 09:30:00+03:30",
    "2026-11-25 01:00:00-05:00",
    "2026-11-25T06:00:00Z",
    "2026-11-25",
]


@pytest.mark.parametrize("stored", SQLITE_TEXTS)
def test_sqlite_text_is_read_as_sqlalchemys_parse_of_it_then_made_utc(stored: str) -> None:
    dialect = sqlite.dialect()
    read = UtcDateTime().dialect_impl(dialect).result_processor(dialect, None)
    assert read is not None
    parsed = datetime.fromisoformat(stored)
    expected = parsed.replace(tzinfo=UTC) if parsed.tzinfo is None else parsed.astimezone(UTC)
    got = read(stored)
    assert got == expected
    assert got.utcoffset() == timedelta(0)
    # What SQLAlchemy's own chain (its parser, then process_result_value) gives.
    bound = cast(TypeDecorator[datetime], UtcDateTime().dialect_impl(dialect))
    chain = TypeDecorator[datetime].result_processor(bound, dialect, None)
    assert chain is not None
    assert got == chain(stored)
    assert read(None) is None


WRITTEN = [
    datetime(2026, 11, 25, 6, 0, 0, 123456, tzinfo=UTC),
    datetime(2026, 11, 25, 6, 0, tzinfo=UTC),
    datetime(2026, 11, 25, 9, 30, 0, 1, tzinfo=timezone(timedelta(hours=3, minutes=30))),
    datetime(2026, 1, 1, 0, 0, 0, 999999, tzinfo=timezone(timedelta(hours=-8))),
    datetime(1, 1, 1, 0, 0, tzinfo=UTC),
    datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
]


@pytest.mark.parametrize("written", WRITTEN, ids=str)
def test_sqlite_text_is_written_as_sqlalchemys_own_chain_writes_it(written: datetime) -> None:
    dialect = sqlite.dialect()
    write = UtcDateTime().dialect_impl(dialect).bind_processor(dialect)
    assert write is not None
    # SQLAlchemy's own chain: process_bind_param, then its SQLite DATETIME's processor.
    bound = cast(TypeDecorator[datetime], UtcDateTime().dialect_impl(dialect))
    chain = TypeDecorator[datetime].bind_processor(bound, dialect)
    assert chain is not None
    assert write(written) == chain(written)
    assert write(None) is None


def test_a_naive_datetime_is_refused_before_it_reaches_sqlite() -> None:
    dialect = sqlite.dialect()
    write = UtcDateTime().dialect_impl(dialect).bind_processor(dialect)
    assert write is not None
    with pytest.raises(ValueError, match="naive"):
        write(datetime(2026, 11, 25, 6, 0))


_stamps = Table(
    "utc_stamps", MetaData(), Column("id", Integer, primary_key=True), Column("at", UtcDateTime)
)


async def test_a_datetime_written_in_any_zone_is_read_back_as_the_same_instant_in_utc(
    admin_engine: AsyncEngine,
) -> None:
    written = [
        datetime(2026, 11, 25, 6, 0, 0, 123456, tzinfo=UTC),
        datetime(2026, 11, 25, 9, 0, tzinfo=timezone(timedelta(hours=3))),
        datetime(2026, 1, 1, 0, 0, 0, 1, tzinfo=timezone(timedelta(hours=-8))),
    ]
    async with admin_engine.begin() as connection:
        await connection.run_sync(_stamps.create)
    try:
        async with admin_engine.begin() as connection:
            await connection.execute(insert(_stamps), [{"at": at} for at in written])
            read = (await connection.execute(select(_stamps.c.at).order_by(_stamps.c.id))).scalars()
            for before, after in zip(written, read, strict=True):
                assert after == before
                assert after.tzinfo is UTC
    finally:
        async with admin_engine.begin() as connection:
            await connection.execute(text("DROP TABLE utc_stamps"))
