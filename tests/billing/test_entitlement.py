"""GET /v1/billing/entitlement: the latest subscription row, normalised, and this period's usage."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp, create_app
from lisan.billing import service
from lisan.billing.models import BilledCommand, Subscription
from lisan.billing.schemas import SubscriptionStatus
from lisan.core.settings import Settings
from lisan.db.types import utcnow
from tests.fixtures.accounts import set_account_status
from tests.fixtures.answers import assert_retry_after, assert_unauthenticated
from tests.fixtures.app import client_for
from tests.fixtures.billing import ENTITLEMENT, bill, entitlement_of, get_entitlement, subscribe
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.devices import register

MICROSECOND = timedelta(microseconds=1)


def parsed(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def test_without_a_subscription_the_state_is_none(client: httpx.AsyncClient) -> None:
    device = await register(client)
    assert await entitlement_of(client, device) == {
        "enforcement": "disabled",
        "state": "NONE",
        "status": None,
        "renews_at": None,
        "command_quota": None,
        "commands_used": 0,
    }


@pytest.mark.parametrize("status", [status.value for status in SubscriptionStatus])
async def test_a_stored_status_before_renewal_is_the_state(
    app: LisanApp, client: httpx.AsyncClient, status: str
) -> None:
    device = await register(client)
    renews_at = utcnow() + timedelta(days=12)
    await subscribe(app, device.user_id, status, renews_at=renews_at, quota=250)
    body = await entitlement_of(client, device)
    assert parsed(body.pop("renews_at")) == renews_at
    assert body == {
        "enforcement": "disabled",
        "state": status,
        "status": status,
        "command_quota": 250,
        "commands_used": 0,
    }


@pytest.mark.parametrize("status", ["ACTIVE", "TRIAL"])
async def test_active_or_trial_past_its_renewal_is_expired(
    app: LisanApp, client: httpx.AsyncClient, status: str
) -> None:
    device = await register(client)
    renews_at = utcnow() - timedelta(minutes=1)
    await subscribe(app, device.user_id, status, renews_at=renews_at)
    body = await entitlement_of(client, device)
    assert (body["state"], body["status"]) == ("EXPIRED", status)
    assert parsed(body["renews_at"]) == renews_at


@pytest.mark.parametrize("status", ["PAST_DUE", "CANCELED", "INACTIVE"])
async def test_other_statuses_past_their_renewal_stay_as_stored(
    app: LisanApp, client: httpx.AsyncClient, status: str
) -> None:
    device = await register(client)
    await subscribe(app, device.user_id, status, renews_at=utcnow() - timedelta(days=3))
    body = await entitlement_of(client, device)
    assert (body["state"], body["status"]) == (status, status)


async def test_active_without_a_renewal_date_stays_active(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    await subscribe(app, device.user_id, "ACTIVE")
    body = await entitlement_of(client, device)
    assert (body["state"], body["renews_at"], body["command_quota"]) == ("ACTIVE", None, None)


async def test_the_latest_row_counts(app: LisanApp, client: httpx.AsyncClient) -> None:
    device = await register(client)
    await subscribe(app, device.user_id, "TRIAL", quota=10)
    await subscribe(app, device.user_id, "ACTIVE", quota=500)
    await subscribe(app, device.user_id, "PAST_DUE")
    body = await entitlement_of(client, device)
    assert (body["state"], body["command_quota"]) == ("PAST_DUE", None)
    await subscribe(app, device.user_id, "ACTIVE", quota=500)
    body = await entitlement_of(client, device)
    assert (body["state"], body["command_quota"]) == ("ACTIVE", 500)


async def test_a_status_the_service_does_not_know_is_unknown_with_the_raw_row(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    """A billing sync may write a status outside the six: never read as active."""
    device = await register(client)
    async with admin_engine.begin() as connection:
        await connection.execute(
            insert(Subscription).values(
                user_id=device.user_id, status="paused", command_quota=5, created_at=utcnow()
            )
        )
    body = await entitlement_of(client, device)
    assert (body["state"], body["status"], body["command_quota"]) == ("UNKNOWN", "paused", 5)


async def test_a_user_sees_only_their_own_subscription_and_usage(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    other = await register(client)
    await subscribe(app, other.user_id, "ACTIVE", quota=9)
    await bill(app, other.user_id)
    body = await entitlement_of(client, device)
    assert (body["state"], body["command_quota"], body["commands_used"]) == ("NONE", None, 0)
    theirs = await entitlement_of(client, other)
    assert (theirs["state"], theirs["command_quota"], theirs["commands_used"]) == ("ACTIVE", 9, 1)


@pytest.mark.parametrize("enforcement", ["disabled", "enforced"])
async def test_enforcement_is_the_deployments_setting(
    settings_factory: Callable[..., Settings], enforcement: str
) -> None:
    app = create_app(settings_factory(billing_enforcement=enforcement))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)
        assert (await entitlement_of(client, device))["enforcement"] == enforcement
        await subscribe(app, device.user_id, "CANCELED")
        body = await entitlement_of(client, device)
        assert (body["enforcement"], body["state"]) == (enforcement, "CANCELED")


async def _bill_at(
    app: LisanApp, monkeypatch: pytest.MonkeyPatch, user_id: uuid.UUID, *moments: datetime
) -> None:
    """Billed commands as the command route records them, at chosen moments."""
    for moment in moments:
        with monkeypatch.context() as patch:
            patch.setattr(service, "utcnow", lambda moment=moment: moment)
            await bill(app, user_id)


async def test_usage_counts_the_month_before_the_renewal(
    app: LisanApp, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = await register(client)
    renews_at = (utcnow() + timedelta(days=10)).replace(microsecond=0)
    start = service.months_before(renews_at, 1)
    await subscribe(app, device.user_id, "ACTIVE", renews_at=renews_at, quota=100)
    await _bill_at(app, monkeypatch, device.user_id, start - MICROSECOND, renews_at)  # outside
    await _bill_at(app, monkeypatch, device.user_id, start, renews_at - MICROSECOND)  # inside
    await bill(app, device.user_id)  # now: inside
    body = await entitlement_of(client, device)
    assert (body["commands_used"], body["command_quota"]) == (3, 100)


async def test_usage_of_an_expired_subscription_is_its_last_period(
    app: LisanApp, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = await register(client)
    renews_at = utcnow() - timedelta(days=2)
    await _bill_at(app, monkeypatch, device.user_id, renews_at - timedelta(days=1))
    await bill(app, device.user_id)  # after the renewal date: another period
    await subscribe(app, device.user_id, "ACTIVE", renews_at=renews_at)
    body = await entitlement_of(client, device)
    assert (body["state"], body["commands_used"]) == ("EXPIRED", 1)


async def test_without_a_renewal_date_usage_counts_the_utc_calendar_month(
    app: LisanApp, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    device = await register(client)
    start, end = service.billing_period(None, utcnow())
    await subscribe(app, device.user_id, "TRIAL", quota=50)
    await _bill_at(app, monkeypatch, device.user_id, start - MICROSECOND, end)  # outside
    await _bill_at(app, monkeypatch, device.user_id, start)  # inside
    await bill(app, device.user_id)  # now: inside
    body = await entitlement_of(client, device)
    assert (body["state"], body["commands_used"]) == ("TRIAL", 2)
    assert start == datetime(start.year, start.month, 1, tzinfo=UTC)


async def billed_rows(engine: AsyncEngine, command_id: uuid.UUID) -> list[uuid.UUID]:
    """The user id of every billed row of that command."""
    async with engine.connect() as connection:
        result = await connection.execute(
            select(BilledCommand.user_id).where(BilledCommand.bill_id == command_id)
        )
        return list(result.scalars())


async def test_billing_a_command_twice_bills_it_once(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    command_id = await bill(app, device.user_id)
    await bill(app, device.user_id, command_id)
    await bill(app, other.user_id, command_id)  # a command id names one command only
    async with app.services.resources.database.transaction() as db:
        await service.record_billed_command(db, user_id=device.user_id, bill_id=command_id)
        await service.record_billed_command(db, user_id=device.user_id, bill_id=command_id)
    assert await billed_rows(admin_engine, command_id) == [device.user_id]
    assert (await entitlement_of(client, device))["commands_used"] == 1
    assert (await entitlement_of(client, other))["commands_used"] == 0
    async with admin_engine.connect() as connection:
        assert await connection.scalar(select(func.count()).select_from(BilledCommand)) == 1


async def test_concurrent_bills_of_one_command_bill_it_once(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    command_id = uuid.uuid4()
    await asyncio.gather(*(bill(app, device.user_id, command_id) for _ in range(8)))
    assert await billed_rows(admin_engine, command_id) == [device.user_id]
    assert (await entitlement_of(client, device))["commands_used"] == 1


async def test_without_a_session_it_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get(ENTITLEMENT)
    assert_unauthenticated(response, token_sent=False)
    device = await register(client)
    wrong_install = {**device.headers, "X-Install-ID": "inst-" + "0" * 24}
    assert_unauthenticated(await client.get(ENTITLEMENT, headers=wrong_install), token_sent=True)


async def test_a_suspended_account_gets_403(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await subscribe(app, device.user_id, "ACTIVE")
    await set_account_status(admin_engine, device.user_id, "suspended")
    response = await get_entitlement(client, device)
    assert response.status_code == 403
    assert set(response.json()) == {"error"}


async def test_an_account_being_deleted_gets_409(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await set_account_status(admin_engine, device.user_id, "deleted")
    response = await get_entitlement(client, device)
    assert response.status_code == 409
    assert set(response.json()) == {"error"}
    assert_retry_after(response)


async def test_it_is_rate_limited_per_user(settings_factory: Callable[..., Settings]) -> None:
    await clear_of_a_minute_boundary()
    app = create_app(settings_factory(rate_limit_user="3/minute"))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)  # its /v1/users/me call counts too
        other = await register(client)
        statuses = [(await get_entitlement(client, device)).status_code for _ in range(2)]
        assert statuses == [200, 200]
        limited = await get_entitlement(client, device)
        assert limited.status_code == 429
        assert set(limited.json()) == {"error"}
        assert_retry_after(limited)
        assert (await get_entitlement(client, other)).status_code == 200
