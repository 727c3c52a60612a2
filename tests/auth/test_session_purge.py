"""The session purge has the idempotency purge's shape, so it keeps its guarantee: a session
not past its expiry and grace when the DELETE runs is kept, though it was when the purge began
(no route extends a session today; the purge stays right if one ever does)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import httpx
from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from lisan.app import LisanApp
from lisan.auth import tasks as auth
from lisan.auth.models import DeviceSession
from lisan.core.settings import Settings
from lisan.db.handle import insert_record
from lisan.db.types import utcnow
from tests.fixtures.devices import Device, register
from tests.fixtures.statements import before_delete_from


async def a_session(app: LisanApp, device: Device, expires_at: datetime) -> uuid.UUID:
    session_id = uuid.uuid4()
    async with app.services.resources.database.transaction() as db:
        await insert_record(
            db,
            DeviceSession(
                id=session_id,
                user_id=device.user_id,
                install_id=device.install_id,
                token_hash=uuid.uuid4().bytes * 2,
                created_at=expires_at - timedelta(days=30),
                expires_at=expires_at,
            ),
        )
    return session_id


async def test_a_session_extended_before_the_purges_delete_is_kept(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    resources = app.services.resources
    settings: Settings = resources.settings
    device = await register(client)
    past_grace = utcnow() - timedelta(seconds=settings.refresh_grace_s, days=1)
    extended, stale = [await a_session(app, device, past_grace) for _ in range(2)]
    extended_until = utcnow() + timedelta(days=30)

    def extend(connection: Connection) -> None:
        connection.execute(
            update(DeviceSession)
            .where(DeviceSession.id == extended)
            .values(expires_at=extended_until)
        )

    with before_delete_from(resources.database.write_engine, DeviceSession.__tablename__, extend):
        batch = await auth.purge(database=resources.database, settings=settings, limit=500)

    async with resources.database.engine.connect() as connection:
        left = set(
            (await connection.execute(select(DeviceSession.id).where(DeviceSession.id.in_(
                [extended, stale]
            )))).scalars()
        )  # fmt: skip
    assert left == {extended}
    assert batch.removed == 1
