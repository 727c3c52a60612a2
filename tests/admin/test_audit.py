"""The audit trail: exactly one row per admin call, whatever its end: who, what, on whom, how."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

import lisan.users.service
from lisan.admin import repository
from lisan.admin.models import AuditEvent, Permission
from lisan.app import LisanApp
from lisan.core import tokens
from lisan.db.handle import Db
from lisan.users.service import AccountChange
from tests.fixtures.accounts import account, mark_deleted
from tests.fixtures.admin import (
    OPERATOR,
    ROUTE_IDS,
    ROUTES,
    admin_token,
    audit_of,
    audit_rows,
    bearer,
    credential_id,
    user_path,
)
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device


async def test_a_successful_call_is_audited_ok_with_who_what_and_when(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    before = datetime.now(UTC)
    response = await client.get(user_path(device.user_id), headers=bearer(operator))
    after = datetime.now(UTC)
    assert_matches_contract(response)
    assert response.status_code == 200
    row = await audit_of(admin_engine, response)
    assert row.admin_credential_id == await credential_id(admin_engine, OPERATOR)
    assert row.admin_name == OPERATOR
    assert row.action == "user.read"
    assert row.target == str(device.user_id)
    assert row.outcome == "ok"
    assert row.client_ip == "203.0.113.7"  # the address client_for() calls from
    assert row.request_id == response.headers["x-request-id"]
    assert before <= row.created_at <= after


@pytest.mark.parametrize(("method", "suffix", "action"), ROUTES, ids=ROUTE_IDS)
async def test_each_route_audits_its_own_action(
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
    method: str,
    suffix: str,
    action: str,
) -> None:
    response = await client.request(
        method, user_path(device.user_id, suffix), headers=bearer(operator)
    )
    assert_matches_contract(response)
    assert response.status_code == 200
    assert (await audit_of(admin_engine, response)).action == action


@pytest.mark.parametrize(("method", "suffix", "action"), ROUTES, ids=ROUTE_IDS)
async def test_a_call_lacking_the_permission_is_audited_denied_with_the_credential(
    app: LisanApp,
    client: httpx.AsyncClient,
    device: Device,
    admin_engine: AsyncEngine,
    method: str,
    suffix: str,
    action: str,
) -> None:
    lacking = Permission.USERS_SUSPEND if action == "user.read" else Permission.USERS_READ
    token = await admin_token(app, lacking, name="half")
    response = await client.request(
        method, user_path(device.user_id, suffix), headers=bearer(token)
    )
    assert_matches_contract(response)
    assert response.status_code == 403
    row = await audit_of(admin_engine, response)
    assert (row.outcome, row.action, row.target) == ("denied", action, str(device.user_id))
    assert row.admin_name == "half"
    assert row.admin_credential_id == await credential_id(admin_engine, "half")


@pytest.mark.parametrize("credential", ["none", "unknown", "user-session"])
async def test_an_unauthenticated_call_is_audited_with_no_admin(
    client: httpx.AsyncClient, device: Device, admin_engine: AsyncEngine, credential: str
) -> None:
    headers = {
        "none": {},
        "unknown": bearer(tokens.new_token(tokens.ADMIN_PREFIX)),
        "user-session": device.headers,
    }[credential]
    response = await client.post(user_path(device.user_id, "/suspend"), headers=headers)
    assert_matches_contract(response)
    assert response.status_code == 401
    row = await audit_of(admin_engine, response)
    assert (row.outcome, row.action, row.target) == (
        "unauthenticated",
        "user.suspend",
        str(device.user_id),
    )
    assert (row.admin_credential_id, row.admin_name) == (None, None)


@pytest.mark.parametrize("user_id", ["nope", "1"])
async def test_a_miss_on_an_id_that_is_not_a_uuid_is_audited_not_found_as_given(
    client: httpx.AsyncClient, operator: str, admin_engine: AsyncEngine, user_id: str
) -> None:
    response = await client.get(user_path(user_id), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 404
    row = await audit_of(admin_engine, response)
    assert (row.outcome, row.action, row.target, row.admin_name) == (
        "not_found",
        "user.read",
        user_id,
        OPERATOR,
    )


async def test_the_target_is_the_user_id_as_given_not_as_normalised(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    given = str(device.user_id).upper()
    response = await client.get(user_path(given), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json()["userId"] == str(device.user_id)
    assert (await audit_of(admin_engine, response)).target == given


async def test_a_long_target_is_kept_to_its_first_128_characters(
    client: httpx.AsyncClient, operator: str, admin_engine: AsyncEngine
) -> None:
    user_id = "".join(f"{i:03d}" for i in range(100))  # 300 characters, each prefix distinct
    response = await client.post(user_path(user_id, "/suspend"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 404
    row = await audit_of(admin_engine, response)
    assert row.target == user_id[:128]
    assert row.outcome == "not_found"


async def test_a_miss_on_an_unknown_uuid_is_audited_not_found(
    client: httpx.AsyncClient,
    operator: str,
    admin_engine: AsyncEngine,
) -> None:
    user_id = str(uuid.uuid4())
    response = await client.post(user_path(user_id, "/suspend"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 404
    row = await audit_of(admin_engine, response)
    assert (row.outcome, row.action, row.target) == ("not_found", "user.suspend", user_id)


@pytest.mark.parametrize(
    ("suffix", "action"), [("/suspend", "user.suspend"), ("/reinstate", "user.reinstate")]
)
async def test_a_change_refused_for_a_deleted_account_is_audited_conflict(
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
    suffix: str,
    action: str,
) -> None:
    await mark_deleted(admin_engine, device.user_id)
    response = await client.post(user_path(device.user_id, suffix), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 409
    row = await audit_of(admin_engine, response)
    assert (row.outcome, row.action, row.admin_name) == ("conflict", action, OPERATOR)


async def test_a_user_id_holding_a_nul_character_is_audited_not_found(
    client: httpx.AsyncClient,
    operator: str,
    admin_engine: AsyncEngine,
) -> None:
    response = await client.get(user_path("a%00b"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 404
    row = await audit_of(admin_engine, response)
    assert row.outcome == "not_found"
    assert row.target.startswith("a")


async def test_a_user_id_holding_an_encoded_slash_is_an_audited_miss(
    client: httpx.AsyncClient, operator: str, admin_engine: AsyncEngine
) -> None:
    response = await client.get(user_path("a%2Fb"), headers=bearer(operator))
    # Not assert_matches_contract: it matches httpx's decoded path, /v1/admin/users/a/b.
    assert response.status_code == 404
    assert set(response.json()) == {"error"}
    row = await audit_of(admin_engine, response)
    # The encoded slash stays encoded (so it cannot turn into another route's segments).
    assert (row.outcome, row.target) == ("not_found", "a%2Fb")


async def test_an_encoded_slash_cannot_reach_another_route(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    response = await client.post(user_path(f"{device.user_id}%2Fsuspend"), headers=bearer(operator))
    assert response.status_code in (404, 405)
    assert (await account(admin_engine, device.user_id))[0] == "active"


async def test_the_audit_request_id_is_the_clients_own_uuid(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    own = uuid.uuid4()
    response = await client.get(
        user_path(device.user_id),
        headers={**bearer(operator), "X-Request-ID": str(own).upper()},
    )
    assert_matches_contract(response)
    assert response.headers["x-request-id"] == str(own)
    assert (await audit_of(admin_engine, response)).request_id == str(own)


async def test_a_request_id_that_is_not_a_uuid_is_replaced_in_the_audit_too(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    response = await client.get(
        user_path(device.user_id), headers={**bearer(operator), "X-Request-ID": "my-call-1"}
    )
    assert_matches_contract(response)
    server_id = response.headers["x-request-id"]
    assert server_id != "my-call-1"
    assert (await audit_of(admin_engine, response)).request_id == str(uuid.UUID(server_id))


async def test_exactly_one_audit_row_per_call(
    app: LisanApp,
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
) -> None:
    reader = await admin_token(app, Permission.USERS_READ)
    calls = [
        ("GET", user_path(device.user_id), bearer(operator)),  # ok
        ("POST", user_path(device.user_id, "/suspend"), bearer(operator)),  # ok
        ("POST", user_path(device.user_id, "/suspend"), bearer(operator)),  # unchanged
        ("POST", user_path(device.user_id, "/reinstate"), bearer(reader)),  # denied
        ("POST", user_path(device.user_id, "/reinstate"), {}),  # unauthenticated
        ("GET", user_path("nope"), bearer(operator)),  # not_found
        ("POST", user_path(device.user_id, "/reinstate"), bearer(operator)),  # ok
    ]
    responses = [await client.request(m, path, headers=h) for m, path, h in calls]
    for response in responses:
        assert_matches_contract(response)
    rows = await audit_rows(admin_engine)
    assert sorted(row.request_id for row in rows) == sorted(
        r.headers["x-request-id"] for r in responses
    )
    by_request = {row.request_id: row.outcome for row in rows}
    assert [by_request[r.headers["x-request-id"]] for r in responses] == [
        "ok",
        "ok",
        "unchanged",
        "denied",
        "unauthenticated",
        "not_found",
        "ok",
    ]


async def test_an_unexpected_failure_is_a_bare_500_audited_as_error(
    monkeypatch: pytest.MonkeyPatch,
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
) -> None:
    async def broken(db: Db, user_id: str) -> AccountChange:
        raise RuntimeError("secret detail: connection to 10.0.0.5 lost")

    monkeypatch.setattr(lisan.users.service, "suspend", broken)
    response = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 500
    assert response.json() == {"error": "internal error"}
    row = await audit_of(admin_engine, response)
    assert (row.outcome, row.action, row.admin_name) == ("error", "user.suspend", OPERATOR)


async def test_a_suspend_and_its_audit_row_commit_in_one_transaction(
    monkeypatch: pytest.MonkeyPatch,
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
) -> None:
    """The audit insert of the success path fails after it ran: the status change goes too."""
    original = repository.insert_audit_event
    recorded: list[str] = []

    async def insert_then_fail(db: Db, event: AuditEvent) -> None:
        await original(db, event)
        recorded.append(event.outcome)
        if event.outcome == "ok":
            raise RuntimeError("audit store failed")

    monkeypatch.setattr(repository, "insert_audit_event", insert_then_fail)
    response = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 500
    assert response.json() == {"error": "internal error"}
    assert "ok" in recorded  # the success path's insert did run
    assert await account(admin_engine, device.user_id) == ("active", None)
    assert "ok" not in [row.outcome for row in await audit_rows(admin_engine)]
