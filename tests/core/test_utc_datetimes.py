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

from lisan.core.types import UtcDateTime

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
