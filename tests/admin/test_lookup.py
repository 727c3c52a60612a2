"""GET /v1/admin/users/{userId}: the Admin user record; anything but a known user is 404."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.accounts import mark_deleted
from tests.fixtures.admin import ROUTE_IDS, ROUTES, bearer, user_path
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device


async def test_lookup_answers_exactly_the_admin_user_fields(
    client: httpx.AsyncClient, operator: str, device: Device
) -> None:
    response = await client.get(user_path(device.user_id), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"userId", "status", "registered_at", "suspended_at"}
    assert body["userId"] == str(device.user_id)
    assert body["status"] == "active"
    assert body["suspended_at"] is None
    registered_at = datetime.fromisoformat(body["registered_at"])
    assert registered_at.utcoffset() == timedelta(0)
    assert datetime.now(UTC) - timedelta(minutes=5) < registered_at <= datetime.now(UTC)


async def test_suspended_at_is_set_on_suspend_and_null_after_reinstate(
    client: httpx.AsyncClient, operator: str, device: Device
) -> None:
    before = datetime.now(UTC)
    await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    suspended = await client.get(user_path(device.user_id), headers=bearer(operator))
    await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    reinstated = await client.get(user_path(device.user_id), headers=bearer(operator))
    for response in (suspended, reinstated):
        assert_matches_contract(response)
        assert response.status_code == 200
    assert suspended.json()["status"] == "suspended"
    suspended_at = datetime.fromisoformat(suspended.json()["suspended_at"])
    assert before <= suspended_at <= datetime.now(UTC)
    assert reinstated.json()["status"] == "active"
    assert reinstated.json()["suspended_at"] is None


async def test_lookup_of_an_account_being_deleted_shows_deleted(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    await mark_deleted(admin_engine, device.user_id)
    response = await client.get(user_path(device.user_id), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json()["status"] == "deleted"


@pytest.mark.parametrize(
    "user_id", ["nope", "1", "u" * 300, "12345678-1234-1234-1234-12345678zzzz"]
)
@pytest.mark.parametrize(("method", "suffix", "action"), ROUTES, ids=ROUTE_IDS)
async def test_a_user_id_that_is_not_a_uuid_is_404(
    client: httpx.AsyncClient, operator: str, user_id: str, method: str, suffix: str, action: str
) -> None:
    response = await client.request(method, user_path(user_id, suffix), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 404
    assert response.json() == {"error": "no such user"}


@pytest.mark.parametrize(("method", "suffix", "action"), ROUTES, ids=ROUTE_IDS)
async def test_a_uuid_that_names_no_user_is_404(
    client: httpx.AsyncClient, operator: str, device: Device, method: str, suffix: str, action: str
) -> None:
    response = await client.request(
        method, user_path(uuid.uuid4(), suffix), headers=bearer(operator)
    )
    assert_matches_contract(response)
    assert response.status_code == 404
    assert set(response.json()) == {"error"}
