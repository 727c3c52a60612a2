"""The account status table as admins drive it: idempotent suspend/reinstate, 409 once deleted."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.accounts import account, mark_deleted
from tests.fixtures.admin import audit_of, audit_rows, bearer, user_path
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device


async def test_suspending_an_active_account_suspends_it_audited_ok(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    response = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "suspended", "userId": str(device.user_id)}
    status, suspended_at = await account(admin_engine, device.user_id)
    assert status == "suspended"
    assert suspended_at is not None
    assert (await audit_of(admin_engine, response)).outcome == "ok"


async def test_suspending_a_suspended_account_succeeds_audited_unchanged(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    first = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    _, first_suspended_at = await account(admin_engine, device.user_id)
    second = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    for response in (first, second):
        assert_matches_contract(response)
        assert response.status_code == 200
        assert response.json() == {"status": "suspended", "userId": str(device.user_id)}
    assert (await audit_of(admin_engine, first)).outcome == "ok"
    assert (await audit_of(admin_engine, second)).outcome == "unchanged"
    assert await account(admin_engine, device.user_id) == ("suspended", first_suspended_at)


async def test_reinstating_a_suspended_account_reactivates_it_audited_ok(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    response = await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "active", "userId": str(device.user_id)}
    assert await account(admin_engine, device.user_id) == ("active", None)
    assert (await audit_of(admin_engine, response)).outcome == "ok"


async def test_reinstating_an_active_account_succeeds_audited_unchanged(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    response = await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "active", "userId": str(device.user_id)}
    assert await account(admin_engine, device.user_id) == ("active", None)
    assert (await audit_of(admin_engine, response)).outcome == "unchanged"


@pytest.mark.parametrize("suffix", ["/suspend", "/reinstate"])
async def test_suspend_or_reinstate_of_a_deleted_account_is_409_with_retry_after(
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
    suffix: str,
) -> None:
    await mark_deleted(admin_engine, device.user_id)
    response = await client.post(user_path(device.user_id, suffix), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 409
    assert set(response.json()) == {"error"}
    assert int(response.headers["retry-after"]) >= 1
    assert await account(admin_engine, device.user_id) == ("deleted", None)


async def test_a_suspended_account_keeps_its_session_but_user_routes_answer_403_until_reinstated(
    client: httpx.AsyncClient, operator: str, device: Device
) -> None:
    await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    while_suspended = await client.get("/v1/users/me", headers=device.headers)
    await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    after = await client.get("/v1/users/me", headers=device.headers)
    assert_matches_contract(while_suspended)
    assert while_suspended.status_code == 403
    assert_matches_contract(after)
    assert after.status_code == 200
    assert after.json()["user_id"] == str(device.user_id)


async def test_concurrent_suspends_change_the_account_once(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    responses = await asyncio.gather(
        *(
            client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
            for _ in range(4)
        )
    )
    for response in responses:
        assert_matches_contract(response)
        assert response.status_code == 200
    outcomes = sorted(row.outcome for row in await audit_rows(admin_engine))
    assert outcomes == ["ok", "unchanged", "unchanged", "unchanged"]
