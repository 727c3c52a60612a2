"""Units of work of Core statements (`db.writer.Writer.run`): whole or not at all; on SQLite
one hop to a writer thread of their own per unit of work, never a statement through aiosqlite,
never a wait for SQLite's lock on the event loop, and every wait bounded."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, event, insert, select
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import create_async_engine

from lisan.core.lanes import Lane
from lisan.db.handle import Db
from lisan.db.writer import UnitAwaited, Writer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.app import lisan_app
from tests.fixtures.commands import app_with, command_body, post, raw_body
from tests.fixtures.devices import ready_device
from tests.fixtures.loop import loop_ticks

_NOTES = Table(
    "notes",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("body", String, unique=True),
)
_ADD = insert(_NOTES)
_ALL = select(_NOTES.c.body).order_by(_NOTES.c.id)
_ONE = select(_NOTES.c.body).where(_NOTES.c.body == bindparam("body"))
LOCK_WAIT_S = 0.5


@pytest.fixture
def notes_file(tmp_path: Path) -> Path:
    path = tmp_path / "notes.db"
    setup = sqlite3.connect(path)
    setup.execute("PRAGMA journal_mode=WAL")
    setup.execute("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT UNIQUE)")
    setup.close()
    return path


@pytest.fixture
async def writer(notes_file: Path, lane: Lane) -> AsyncIterator[Writer]:
    engine = create_async_engine(f"sqlite+aiosqlite:///{notes_file}")
    writer = Writer(engine, blocking=lane, lock_wait_s=LOCK_WAIT_S)
    try:
        yield writer
    finally:
        writer.close()
        await engine.dispose()


def _bodies(path: Path) -> list[str]:
    reader = sqlite3.connect(path)
    try:
        return [body for (body,) in reader.execute("SELECT body FROM notes ORDER BY id")]
    finally:
        reader.close()


async def _add(db: Db, *bodies: str) -> None:
    for body in bodies:
        await db.execute(_ADD, {"body": body})


# --- whole or not at all -------------------------------------------------------------------


async def test_a_unit_of_work_commits_its_statements_and_answers_what_it_read(
    writer: Writer, notes_file: Path
) -> None:
    async def add_then_read(db: Db) -> list[str]:
        await _add(db, "first", "second")
        return list((await db.execute(_ALL)).scalars())

    assert await writer.run(add_then_read) == ["first", "second"]
    assert _bodies(notes_file) == ["first", "second"]


async def test_a_unit_of_work_that_breaks_a_constraint_leaves_nothing_and_says_so_as_sqlalchemy(
    writer: Writer, notes_file: Path
) -> None:
    """A failed statement rolls back the statements before it; the error is SQLAlchemy's
    IntegrityError (what the command path answers a removed account with), without values."""
    with pytest.raises(IntegrityError) as raised:
        await writer.run(lambda db: _add(db, "kept?", "twin", "twin"))
    assert _bodies(notes_file) == []
    assert "twin" not in str(raised.value)
    await writer.run(lambda db: _add(db, "after"))  # the connection is usable again
    assert _bodies(notes_file) == ["after"]


async def test_a_unit_of_work_that_awaits_anything_but_a_statement_fails_loudly_and_leaves_nothing(
    writer: Writer, notes_file: Path
) -> None:
    """On SQLite a unit of work runs to its end in one step on the writer thread: an await on
    anything else is a bug, raised, never a silent stall."""

    async def waits(db: Db) -> None:
        await _add(db, "half")
        await asyncio.sleep(0)

    with pytest.raises(UnitAwaited):
        await writer.run(waits)
    assert _bodies(notes_file) == []


async def test_a_blocking_call_in_a_unit_of_work_runs_off_the_loop(writer: Writer) -> None:
    loop_thread = threading.get_ident()

    async def where(_db: Db) -> int:
        return await writer.blocking(threading.get_ident)

    assert await writer.run(where) != loop_thread
    assert await writer.blocking(threading.get_ident) != loop_thread  # outside one: a thread too


# --- waits for SQLite's lock: off the loop, bounded ---------------------------------------


async def test_a_unit_of_work_waits_for_another_connections_lock_off_the_loop(
    writer: Writer, notes_file: Path
) -> None:
    """While another process holds the write lock, the unit of work waits in SQLite's busy
    handler on its own thread: the loop goes on serving, and the unit runs once it is free."""
    other = sqlite3.connect(notes_file, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    async with loop_ticks(0.01) as ticks:
        unit = asyncio.create_task(writer.run(lambda db: _add(db, "waited")))
        await asyncio.sleep(0.2)
        assert not unit.done()
        other.execute("ROLLBACK")
        other.close()
        await unit
    assert ticks.count >= 10, "the loop stalled while the unit of work waited for the lock"
    assert _bodies(notes_file) == ["waited"]


async def test_a_unit_of_work_that_finds_the_lock_free_begins_without_setting_a_wait(
    writer: Writer,
) -> None:
    """The busy handler's wait is set only when another connection holds the lock: a free
    lock costs BEGIN, the statements and COMMIT, nothing more."""
    assert writer.inline is not None
    statements: list[str] = []
    writer.inline.connection.set_trace_callback(statements.append)
    try:
        await writer.run(lambda db: _add(db, "free"))
    finally:
        writer.inline.connection.set_trace_callback(None)
    assert statements[0] == "BEGIN IMMEDIATE"
    assert statements[-1] == "COMMIT"
    assert not [sql for sql in statements if sql.startswith("PRAGMA")]


async def test_a_lock_held_past_the_bound_is_a_lock_wait_failure_in_time(
    writer: Writer, notes_file: Path
) -> None:
    """Past `lock_wait_s` the unit of work fails as SQLite's lock waits do (OperationalError,
    "database is locked": a 503 the client may retry), having written nothing."""
    other = sqlite3.connect(notes_file, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    started = time.monotonic()
    try:
        with pytest.raises(OperationalError, match="database is locked"):
            await writer.run(lambda db: _add(db, "never"))
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert LOCK_WAIT_S * 0.8 <= time.monotonic() - started < LOCK_WAIT_S + 1.0
    assert _bodies(notes_file) == []


async def test_a_turn_at_the_writer_waited_for_past_the_bound_is_a_pool_timeout(
    writer: Writer, notes_file: Path
) -> None:
    """Units of work of one process take turns at its one writer connection; a turn that does
    not come within the bound fails as a pool wait does (503, counted as overload)."""

    async def slow(db: Db) -> None:
        await _add(db, "slow")
        await writer.blocking(time.sleep, LOCK_WAIT_S * 2)

    first = asyncio.create_task(writer.run(slow))
    await asyncio.sleep(0.05)
    with pytest.raises(PoolTimeout):
        await writer.run(lambda db: _add(db, "second"))
    await first
    assert _bodies(notes_file) == ["slow"]


async def test_a_caller_cancelled_while_its_unit_waits_gives_the_connection_back_clean(
    writer: Writer, notes_file: Path
) -> None:
    """A cancelled caller waits for its unit of work to end (here: the lock came, the unit ran
    and committed) before the connection is given back, so the next unit of work finds it
    outside any transaction."""
    other = sqlite3.connect(notes_file, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    unit = asyncio.create_task(writer.run(lambda db: _add(db, "cancelled caller")))
    await asyncio.sleep(0.05)
    unit.cancel()
    await asyncio.sleep(0.05)
    other.execute("ROLLBACK")
    other.close()
    with pytest.raises(asyncio.CancelledError):
        await unit
    assert writer.inline is not None
    assert not writer.inline.in_transaction
    await writer.run(lambda db: _add(db, "next"))
    assert _bodies(notes_file) == ["cancelled caller", "next"]


# --- the command path ----------------------------------------------------------------------


async def test_a_sqlite_commands_units_of_work_never_go_through_aiosqlite(
    settings_factory: Any, fake_openai: FakeOpenAI, database_kind: str
) -> None:
    if database_kind != "sqlite":
        pytest.skip("PostgreSQL's units of work run on the write engine's pool")
    async with app_with(settings_factory, fake_openai.base_url) as client:
        resources = lisan_app(client).services.resources
        device = await ready_device(client)
        through_engine: list[str] = []
        on_writer: list[str] = []

        def on_engine(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
            through_engine.append(statement)

        assert resources.database.writer.inline is not None
        resources.database.writer.inline.connection.set_trace_callback(on_writer.append)
        event.listen(
            resources.database.write_engine.sync_engine, "before_cursor_execute", on_engine
        )
        try:
            response: httpx.Response = await post(
                client, device.headers, raw_body(command_body()), uuid.uuid4()
            )
        finally:
            event.remove(
                resources.database.write_engine.sync_engine, "before_cursor_execute", on_engine
            )
            resources.database.writer.inline.connection.set_trace_callback(None)
    assert response.status_code == 200, response.text
    assert through_engine == []
    assert sum(statement == "BEGIN IMMEDIATE" for statement in on_writer) == 2
    assert any(statement.startswith("INSERT INTO command_events") for statement in on_writer)
