"""UNKNOWN: the subscription store cannot be read now (a real fault, not a mock). It is never
active, every other field is null, and the caller's unit of work carries on."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import httpx
import pytest
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from lisan.billing import service
from lisan.billing.models import BilledCommand
from lisan.core.settings import BillingEnforcement
from lisan.db.database import create_engine
from tests.fixtures.billing import entitlement_of, subscribe
from tests.fixtures.devices import register
from tests.fixtures.rows import subscriptions_unreadable

UNKNOWN = {
    "enforcement": "disabled",
    "state": "UNKNOWN",
    "status": None,
    "renews_at": None,
    "command_quota": None,
    "commands_used": None,
}


@asynccontextmanager
async def subscriptions_locked(database_url: str) -> AsyncIterator[None]:
    """Another transaction holds a lock that blocks reading subscriptions (PostgreSQL)."""
    engine = create_engine(database_url, for_writes=True)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("LOCK TABLE subscriptions IN ACCESS EXCLUSIVE MODE"))
            yield
    finally:
        await engine.dispose()


async def test_a_missing_table_is_unknown_with_nulls(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await subscribe(app, device.user_id, "ACTIVE", quota=100)
    async with subscriptions_unreadable(admin_engine):
        body = await entitlement_of(client, device)
    assert body == UNKNOWN
    after = await entitlement_of(client, device)
    assert after["state"] == "ACTIVE"


async def test_a_read_slower_than_two_seconds_is_unknown(
    app: LisanApp, client: httpx.AsyncClient, database_url: str, database_kind: str
) -> None:
    if database_kind != "postgresql":
        pytest.skip("a SQLite reader never waits (tests/db/test_read_routes.py)")
    device = await register(client)
    await subscribe(app, device.user_id, "ACTIVE")
    started = time.monotonic()
    async with subscriptions_locked(database_url):
        body = await entitlement_of(client, device)
    elapsed = time.monotonic() - started
    assert body == UNKNOWN
    # The read is given up at the limit (its connection, cut off mid-read, is discarded).
    limit = service.ENTITLEMENT_READ_TIMEOUT_S
    assert limit <= elapsed < limit + 1
    after = await entitlement_of(client, device)
    assert after["state"] == "ACTIVE"


async def billed_rows(engine: AsyncEngine, command_id: uuid.UUID) -> int:
    async with engine.connect() as connection:
        count = await connection.scalar(
            select(func.count())
            .select_from(BilledCommand)
            .where(BilledCommand.bill_id == command_id)
        )
    return int(count or 0)


async def test_the_unit_of_work_goes_on_after_a_failed_read(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    """The command pipeline reads the entitlement, then writes in the same unit of work."""
    device = await register(client)
    before, after = uuid.uuid4(), uuid.uuid4()
    database = app.services.resources.database
    async with subscriptions_unreadable(admin_engine), database.transaction() as db:
        await service.record_billed_command(db, user_id=device.user_id, bill_id=before)
        ent = await service.entitlement(db, device.user_id, BillingEnforcement.ENFORCED)
        await service.record_billed_command(db, user_id=device.user_id, bill_id=after)
    assert ent == service.unknown_entitlement(BillingEnforcement.ENFORCED)
    assert service.allows_commands(ent) is None
    assert await billed_rows(admin_engine, before) == await billed_rows(admin_engine, after) == 1


async def test_the_unit_of_work_goes_on_after_a_slow_read(
    app: LisanApp,
    client: httpx.AsyncClient,
    admin_engine: AsyncEngine,
    database_url: str,
    database_kind: str,
) -> None:
    if database_kind != "postgresql":
        pytest.skip("SQLite never waits inside a unit of work: it holds the write lock")
    device = await register(client)
    before, after = uuid.uuid4(), uuid.uuid4()
    async with app.services.resources.database.transaction() as db:
        await service.record_billed_command(db, user_id=device.user_id, bill_id=before)
        async with subscriptions_locked(database_url):
            ent = await service.entitlement(db, device.user_id, BillingEnforcement.DISABLED)
        await service.record_billed_command(db, user_id=device.user_id, bill_id=after)
    assert ent == service.unknown_entitlement(BillingEnforcement.DISABLED)
    assert await billed_rows(admin_engine, before) == await billed_rows(admin_engine, after) == 1
