"""The credential look-up every user and admin route begins with (`core.lookups.Lookups`): on
SQLite a synchronous read on the event loop's thread, never a thread hop through aiosqlite (the
async engine cost 658 us of CPU per look-up, this path 108); bounded so a lock cannot hold the
loop for SQLite's usual 5 s lock wait."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from sqlalchemy import event

from lisan.app import LisanApp
from lisan.core.lookups import LOOKUP_BUSY_WAIT_S
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

    def on_inline(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        inline.append(statement)

    def on_pooled(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        pooled.append(statement)

    engines = [resources.engine.sync_engine, resources.write_engine.sync_engine]
    event.listen(resources.lookups.inline, "before_cursor_execute", on_inline)
    for engine in engines:
        event.listen(engine, "before_cursor_execute", on_pooled)
    try:
        response = await client.get("/v1/users/me", headers=device.headers)
    finally:
        event.remove(resources.lookups.inline, "before_cursor_execute", on_inline)
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
    inline = app.services.resources.lookups.inline
    assert inline is not None
    with inline.connect() as connection:
        busy_ms = connection.exec_driver_sql("PRAGMA busy_timeout").scalar()
        query_only = connection.exec_driver_sql("PRAGMA query_only").scalar()
    assert busy_ms == LOOKUP_BUSY_WAIT_S * 1000
    assert busy_ms < 1000  # never SQLite's 5 s write-lock wait on the event loop
    assert query_only == 1
