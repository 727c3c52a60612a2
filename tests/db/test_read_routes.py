"""On SQLite a route that only reads never takes the write lock (GET /v1/app-grants,
/v1/vocabulary and /v1/billing/entitlement never begin with BEGIN IMMEDIATE, so never wait
behind a writer)."""

from __future__ import annotations

import sqlite3
import time
import uuid

import httpx
import pytest
from sqlalchemy.engine import make_url

from tests.fixtures.devices import register

READ_ROUTES = [
    "/v1/app-grants",
    "/v1/vocabulary",
    "/v1/billing/entitlement",
    "/v1/consent/grants/current?scope=audio_retention",
]


async def test_reads_answer_while_another_process_holds_the_write_lock(
    client: httpx.AsyncClient, database_url: str, database_kind: str
) -> None:
    if database_kind != "sqlite":
        pytest.skip("the write lock is SQLite's (PostgreSQL readers never wait for writers)")
    device = await register(client)
    writer = sqlite3.connect(make_url(database_url).database or "", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # as another server process in mid-write holds it
    try:
        timed: list[tuple[str, int, float]] = []
        for path in READ_ROUTES:
            started = time.perf_counter()
            response = await client.get(path, headers=device.headers)
            timed.append((path, response.status_code, time.perf_counter() - started))
        started = time.perf_counter()
        job = await client.get(f"/v1/consent/user-data/jobs/{uuid.uuid4()}")
        timed.append(("job lookup", job.status_code, time.perf_counter() - started))
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert [(path, status) for path, status, _ in timed] == [
        *((path, 200) for path in READ_ROUTES),
        ("job lookup", 404),
    ]
    assert max(elapsed for *_, elapsed in timed) < 1.0, timed
