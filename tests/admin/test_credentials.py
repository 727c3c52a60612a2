"""Admin credentials: only a live admin token is accepted, and each route needs its permission."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.admin import service as admin_service
from lisan.admin.models import AdminCredential, Permission
from lisan.app import LisanApp
from lisan.core import tokens
from tests.fixtures.accounts import account
from tests.fixtures.admin import ROUTE_IDS, ROUTES, admin_token, audit_of, bearer, user_path
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device

BARE_CHALLENGE = 'Bearer realm="lisan"'
INVALID_TOKEN_CHALLENGE = 'Bearer realm="lisan", error="invalid_token"'


def _bad_checksum(token: str) -> str:
    last = "A" if token[-1] != "A" else "B"
    return token[:-1] + last


@pytest.mark.parametrize(("method", "suffix", "action"), ROUTES, ids=ROUTE_IDS)
async def test_no_credential_is_401_with_a_bearer_challenge(
    client: httpx.AsyncClient, device: Device, method: str, suffix: str, action: str
) -> None:
    response = await client.request(method, user_path(device.user_id, suffix))
    assert_matches_contract(response)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == BARE_CHALLENGE
    assert set(response.json()) == {"error"}


@pytest.mark.parametrize(
    "authorization",
    [
        "Bearer nope",
        "Bearer lsn_a_",
        "Bearer " + _bad_checksum(tokens.new_token(tokens.ADMIN_PREFIX)),
        "Bearer ",
    ],
    ids=["garbage", "prefix-only", "bad-checksum", "empty-bearer"],
)
async def test_a_malformed_admin_token_is_401_invalid_token(
    client: httpx.AsyncClient, device: Device, authorization: str
) -> None:
    response = await client.get(user_path(device.user_id), headers={"Authorization": authorization})
    assert_matches_contract(response)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == INVALID_TOKEN_CHALLENGE


async def test_another_auth_scheme_offers_no_token_and_gets_the_bare_challenge(
    client: httpx.AsyncClient, device: Device
) -> None:
    response = await client.get(
        user_path(device.user_id), headers={"Authorization": "Basic dXNlcjpwYXNz"}
    )
    assert_matches_contract(response)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == BARE_CHALLENGE


async def test_a_well_formed_but_unknown_admin_token_is_401_invalid_token(
    client: httpx.AsyncClient, device: Device
) -> None:
    unknown = tokens.new_token(tokens.ADMIN_PREFIX)
    response = await client.get(user_path(device.user_id), headers=bearer(unknown))
    assert_matches_contract(response)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == INVALID_TOKEN_CHALLENGE


async def test_a_revoked_admin_token_is_401_invalid_token(
    app: LisanApp, client: httpx.AsyncClient, device: Device
) -> None:
    token = await admin_token(app, Permission.USERS_READ, name="leaving")
    before = await client.get(user_path(device.user_id), headers=bearer(token))
    async with app.services.resources.database.transaction() as db:
        assert await admin_service.revoke_credential(db, "leaving")
    after = await client.get(user_path(device.user_id), headers=bearer(token))
    assert_matches_contract(before)
    assert before.status_code == 200
    assert_matches_contract(after)
    assert after.status_code == 401
    assert after.headers["www-authenticate"] == INVALID_TOKEN_CHALLENGE


@pytest.mark.parametrize(("method", "suffix", "action"), ROUTES, ids=ROUTE_IDS)
async def test_a_user_session_token_is_never_accepted_on_admin_routes(
    client: httpx.AsyncClient,
    device: Device,
    admin_engine: AsyncEngine,
    method: str,
    suffix: str,
    action: str,
) -> None:
    response = await client.request(
        method, user_path(device.user_id, suffix), headers=device.headers
    )
    assert_matches_contract(response)
    assert response.status_code == 401
    assert response.headers["www-authenticate"] == INVALID_TOKEN_CHALLENGE
    assert await account(admin_engine, device.user_id) == ("active", None)


async def test_an_admin_token_on_a_user_route_is_401(
    client: httpx.AsyncClient, operator: str, device: Device
) -> None:
    response = await client.get(
        "/v1/users/me", headers={**bearer(operator), "X-Install-ID": device.install_id}
    )
    assert_matches_contract(response)
    assert response.status_code == 401


@pytest.mark.parametrize("suffix", ["/suspend", "/reinstate"])
async def test_users_read_alone_cannot_suspend_or_reinstate(
    app: LisanApp,
    client: httpx.AsyncClient,
    device: Device,
    admin_engine: AsyncEngine,
    suffix: str,
) -> None:
    reader = await admin_token(app, Permission.USERS_READ)
    response = await client.post(user_path(device.user_id, suffix), headers=bearer(reader))
    assert_matches_contract(response)
    assert response.status_code == 403
    assert set(response.json()) == {"error"}
    assert await account(admin_engine, device.user_id) == ("active", None)


async def test_users_suspend_alone_cannot_read(
    app: LisanApp, client: httpx.AsyncClient, device: Device
) -> None:
    suspender = await admin_token(app, Permission.USERS_SUSPEND)
    denied = await client.get(user_path(device.user_id), headers=bearer(suspender))
    allowed = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(suspender))
    assert_matches_contract(denied)
    assert denied.status_code == 403
    assert_matches_contract(allowed)
    assert allowed.status_code == 200


async def test_a_reissued_name_is_a_new_credential_and_the_old_keeps_its_history(
    app: LisanApp, client: httpx.AsyncClient, device: Device, admin_engine: AsyncEngine
) -> None:
    """Re-issuing a revoked name makes a new credential: the old row (its id, its dates and so
    the audit rows that name it) stays as it was."""
    old = await admin_token(app, Permission.USERS_READ, name="ops")
    old_call = await client.get(user_path(device.user_id), headers=bearer(old))
    async with app.services.resources.database.transaction() as db:
        assert await admin_service.revoke_credential(db, "ops")
    new = await admin_token(app, Permission.USERS_READ, name="ops")
    new_call = await client.get(user_path(device.user_id), headers=bearer(new))
    assert (old_call.status_code, new_call.status_code) == (200, 200)
    async with admin_engine.connect() as connection:
        credentials = (
            await connection.execute(
                select(AdminCredential.id, AdminCredential.created_at, AdminCredential.revoked_at)
                .where(AdminCredential.name == "ops")
                .order_by(AdminCredential.created_at)
            )
        ).all()
    assert len(credentials) == 2
    (old_id, old_created, old_revoked), (new_id, new_created, new_revoked) = credentials
    assert old_revoked is not None
    assert new_revoked is None
    assert old_created <= old_revoked <= new_created
    old_row = await audit_of(admin_engine, old_call)
    new_row = await audit_of(admin_engine, new_call)
    assert (old_row.admin_credential_id, new_row.admin_credential_id) == (old_id, new_id)
