"""The idempotency purge never deletes a key that is not expired when its DELETE runs, though
the key was expired when the purge began: a retry that reclaimed the key meanwhile keeps it, so
the command is not run twice. On SQLite and PostgreSQL; on PostgreSQL also with the renewal
committed by another transaction while the purge's DELETE waits for the row."""

from __future__ import annotations

import asyncio
import time
import uuid
from datetime import datetime, timedelta

import httpx
import pytest
from sqlalchemy import select, text, update
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from lisan.app import LisanApp
from lisan.commands import tasks
from lisan.commands.models import DONE, IdempotencyRecord
from lisan.db.handle import insert_record
from lisan.db.types import utcnow
from tests.fixtures.devices import Device, register
from tests.fixtures.statements import before_delete_from


async def a_record(app: LisanApp, device: Device, expires_at: datetime) -> uuid.UUID:
    key = uuid.uuid4()
    async with app.services.resources.database.transaction() as db:
        await insert_record(
            db,
            IdempotencyRecord(
                user_id=device.user_id,
                key=key,
                body_hash=b"\0" * 32,
                state=DONE,
                lease_until=expires_at,
                created_at=expires_at - timedelta(hours=24),
                expires_at=expires_at,
            ),
        )
    return key


async def expiry_of(engine: AsyncEngine, key: uuid.UUID) -> datetime | None:
    async with engine.connect() as connection:
        found = await connection.execute(
            select(IdempotencyRecord.expires_at).where(IdempotencyRecord.key == key)
        )
        return found.scalar_one_or_none()


async def purge(app: LisanApp) -> int:
    resources = app.services.resources
    batch = await tasks.purge(database=resources.database, settings=resources.settings, limit=500)
    return batch.removed


async def test_a_key_renewed_before_the_purges_delete_is_kept(
    app: LisanApp, registered: Device
) -> None:
    now = utcnow()
    renewed = await a_record(app, registered, now - timedelta(hours=1))
    stale = await a_record(app, registered, now - timedelta(hours=2))
    renewed_until = now + timedelta(hours=24)
    write_engine = app.services.resources.database.write_engine

    def renew(connection: Connection) -> None:  # as a retry reclaiming the key would
        connection.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.key == renewed)
            .values(expires_at=renewed_until)
        )

    with before_delete_from(write_engine, IdempotencyRecord.__tablename__, renew):
        deleted = await purge(app)

    engine = app.services.resources.database.engine
    assert await expiry_of(engine, renewed) == renewed_until  # kept: not expired at the DELETE
    assert await expiry_of(engine, stale) is None  # the expired one went
    assert deleted == 1


async def test_a_renewal_committed_while_the_delete_waits_for_the_row_is_kept(
    app: LisanApp, registered: Device, admin_engine: AsyncEngine, database_kind: str
) -> None:
    if database_kind != "postgresql":
        pytest.skip(
            "on SQLite the purge holds the write lock from its start: nothing comes between"
        )
    key = await a_record(app, registered, utcnow() - timedelta(hours=1))
    renewed_until = utcnow() + timedelta(hours=24)
    async with admin_engine.connect() as renewer, admin_engine.connect() as observer:
        await renewer.begin()
        await renewer.execute(  # holds the row's lock until it commits
            update(IdempotencyRecord)
            .where(IdempotencyRecord.key == key)
            .values(expires_at=renewed_until)
        )
        purging = asyncio.create_task(purge(app))
        deadline = time.monotonic() + 10
        while not await _a_delete_waits_for_a_lock(observer):
            assert not purging.done(), "the purge did not wait for the row"
            assert time.monotonic() < deadline, "the purge never reached the row"
            await asyncio.sleep(0.02)
        await renewer.commit()
        deleted = await purging
    assert deleted == 0
    assert await expiry_of(app.services.resources.database.engine, key) == renewed_until


async def _a_delete_waits_for_a_lock(observer: AsyncConnection) -> bool:
    waiting = await observer.execute(
        text(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'"
            " AND query LIKE 'DELETE FROM idempotency_records%'"
        )
    )
    await observer.commit()
    return bool(waiting.scalar_one())


@pytest.fixture
async def registered(client: httpx.AsyncClient) -> Device:
    return await register(client)
