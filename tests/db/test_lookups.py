"""The credential look-up every user and admin route begins with (`db.lookups.Lookups`): on
SQLite a read by the driver itself on the event loop's thread, never a thread hop through
aiosqlite (the async engine cost 658 us of CPU per look-up, bare sqlite3 8); bounded so a lock
cannot hold the loop for SQLite's usual 5 s lock wait; a failure raised as SQLAlchemy's, so it
is answered as every database failure is."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import create_async_engine

from lisan.app import LisanApp
from lisan.auth.repository import _PRINCIPAL_BY_HASH
from lisan.db.lookups import LOOKUP_BUSY_WAIT_S, Lookups
from tests.fixtures.devices import register


async def test_a_sqlite_credential_lookup_runs_on_the_loop_not_through_aiosqlite(
    app: LisanApp, client: httpx.AsyncClient, database_kind: str
) -> None:
    if database_kind != "sqlite":
        pytest.skip("PostgreSQL's look-ups run on its pool's autocommit connections")
    device = await register(client)
    resources = app.services.resources
    inline: list[str] = []
    pooled: list[str] = []

    def on_pooled(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        pooled.append(statement)

    engines = [resources.database.engine.sync_engine, resources.database.write_engine.sync_engine]
    assert resources.database.reads.inline is not None
    resources.database.reads.inline.connection.set_trace_callback(inline.append)
    for engine in engines:
        event.listen(engine, "before_cursor_execute", on_pooled)
    try:
        response = await client.get("/v1/users/me", headers=device.headers)
    finally:
        resources.database.reads.inline.connection.set_trace_callback(None)
        for engine in engines:
            event.remove(engine, "before_cursor_execute", on_pooled)
    assert response.status_code == 200
    assert response.json()["user_id"] == str(device.user_id)
    assert len(inline) == 1
    assert "token_hash" in inline[0]
    assert pooled == []


async def test_a_sqlite_lookup_waits_for_a_lock_briefly_and_only_reads(
    app: LisanApp, database_kind: str
) -> None:
    if database_kind != "sqlite":
        pytest.skip("the inline look-up connection is SQLite's")
    lookups = app.services.resources.database.reads.inline
    assert lookups is not None
    inline = lookups.connection
    assert inline is not None
    busy_ms = inline.execute("PRAGMA busy_timeout").fetchone()[0]
    query_only = inline.execute("PRAGMA query_only").fetchone()[0]
    assert busy_ms == LOOKUP_BUSY_WAIT_S * 1000
    assert busy_ms < 1000  # never SQLite's 5 s write-lock wait on the event loop
    assert query_only == 1


async def test_a_sqlite_driver_failure_is_raised_as_sqlalchemy_raises_it(tmp_path: Path) -> None:
    """A driver error on the inline connection (here a table the file lacks; a lock wait past
    LOOKUP_BUSY_WAIT_S is another) comes out as SQLAlchemy's OperationalError, which the error
    handlers answer 503 as they answer every SQLite lock wait, without the bound values."""
    lookups = Lookups(create_async_engine(f"sqlite+aiosqlite:///{tmp_path}/empty.db"))
    try:
        with pytest.raises(OperationalError) as raised:
            await lookups.execute(_PRINCIPAL_BY_HASH, {"token_hash": b"secret-token-hash"})
    finally:
        lookups.close()
        await lookups.engine.dispose()
    assert isinstance(raised.value.orig, sqlite3.OperationalError)
    assert "secret-token-hash" not in str(raised.value)
