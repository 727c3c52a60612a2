"""The contract's Authentication section, rule by rule, for user session tokens.

Each test is named after the numbered rule it proves. Every user route (GET /v1/users/me,
POST /v1/auth/refresh, POST /v1/auth/logout) goes through the one authentication dependency,
so the credential rules are checked on all of them.
"""

from __future__ import annotations

from datetime import timedelta

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.admin.models import Permission
from lisan.app import LisanApp
from lisan.core import tokens
from tests.fixtures.accounts import set_account_status, suspend
from tests.fixtures.admin import admin_token
from tests.fixtures.answers import assert_retry_after, assert_unauthenticated
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, new_install_id, register
from tests.fixtures.sessions import (
    USER_ROUTE_IDS,
    USER_ROUTES,
    auth_headers,
    call,
    expire_ago,
    forge,
    session_row,
    token_body,
)

ADMIN_ROUTES = [
    ("GET", "/v1/admin/users/{user_id}"),
    ("POST", "/v1/admin/users/{user_id}/suspend"),
    ("POST", "/v1/admin/users/{user_id}/reinstate"),
]
user_routes = pytest.mark.parametrize(("method", "path"), USER_ROUTES, ids=USER_ROUTE_IDS)


def _bad_checksum(token: str) -> str:
    last = token[-1]
    return token[:-1] + ("A" if last != "A" else "B")


def _other_prefix(token: str) -> str:
    return forge("lsn_x_", token_body(token))


# -- Rule 1: a prefixed bearer token, bound to the install id; the install id alone is nothing --


async def test_rule_1_a_session_token_with_its_install_id_authenticates(
    client: httpx.AsyncClient,
) -> None:
    device = await register(client)
    assert device.token.startswith(tokens.SESSION_PREFIX)
    response = await call(client, "GET", "/v1/users/me", device.headers)
    assert response.status_code == 200
    assert response.json()["user_id"] == str(device.user_id)


@user_routes
async def test_rule_1_the_install_id_alone_is_not_a_credential(
    client: httpx.AsyncClient, method: str, path: str
) -> None:
    device = await register(client)
    response = await call(client, method, path, {"X-Install-ID": device.install_id})
    assert_unauthenticated(response, token_sent=False)


@pytest.mark.parametrize(
    "authorization",
    ["{token}", "Token {token}", "Basic {token}", "Bearer: {token}", "Bearer{token}"],
)
async def test_rule_1_the_token_must_be_sent_as_authorization_bearer(
    client: httpx.AsyncClient, authorization: str
) -> None:
    device = await register(client)
    headers = {
        "Authorization": authorization.format(token=device.token),
        "X-Install-ID": device.install_id,
    }
    assert_unauthenticated(await call(client, "GET", "/v1/users/me", headers), token_sent=None)


async def test_rule_1_the_bearer_scheme_is_case_insensitive(client: httpx.AsyncClient) -> None:
    device = await register(client)
    headers = {"Authorization": f"bearer {device.token}", "X-Install-ID": device.install_id}
    assert (await call(client, "GET", "/v1/users/me", headers)).status_code == 200


# -- Rule 2: without its install id, or with a mismatched one: 401 -------------------------------


@user_routes
async def test_rule_2_token_without_its_install_id_is_401(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, method: str, path: str
) -> None:
    device = await register(client)
    response = await call(client, method, path, {"Authorization": f"Bearer {device.token}"})
    assert_unauthenticated(response, token_sent=True)
    assert (await session_row(admin_engine, device.token)).revoked_at is None


@pytest.mark.parametrize(
    "mismatch",
    ["other-device", "upper-case", "15-chars", "129-chars", "empty", "own-plus-one"],
)
@user_routes
async def test_rule_2_token_with_a_mismatched_install_id_is_401(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, method: str, path: str, mismatch: str
) -> None:
    device = await register(client)
    other = await register(client)
    install_id = {
        "other-device": other.install_id,
        "upper-case": device.install_id.upper(),
        "15-chars": device.install_id[:15],
        "129-chars": device.install_id + "x" * (129 - len(device.install_id)),
        "empty": "",
        "own-plus-one": device.install_id + "0",
    }[mismatch]
    assert install_id != device.install_id
    response = await call(client, method, path, auth_headers(device.token, install_id))
    assert_unauthenticated(response, token_sent=True)
    assert (await session_row(admin_engine, device.token)).revoked_at is None


# -- Rule 3: refresh rotates; an expired token within the grace may be refreshed; revoked never --


async def test_rule_3_refresh_revokes_the_presented_token_and_issues_a_new_one(
    client: httpx.AsyncClient,
) -> None:
    device = await register(client)
    response = await call(client, "POST", "/v1/auth/refresh", device.headers)
    assert response.status_code == 200
    new_token = response.json()["session_token"]
    assert new_token != device.token
    old = await call(client, "GET", "/v1/users/me", device.headers)
    assert_unauthenticated(old, token_sent=True)
    new = await call(client, "GET", "/v1/users/me", auth_headers(new_token, device.install_id))
    assert new.status_code == 200


async def test_rule_3_an_expired_token_within_the_grace_period_can_be_refreshed_only(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await expire_ago(admin_engine, device.token, timedelta(minutes=5))
    # Expired: no longer usable, nor able to log out...
    assert_unauthenticated(
        await call(client, "GET", "/v1/users/me", device.headers), token_sent=True
    )
    assert_unauthenticated(
        await call(client, "POST", "/v1/auth/logout", device.headers), token_sent=True
    )
    # ...but still refreshable within the grace period.
    response = await call(client, "POST", "/v1/auth/refresh", device.headers)
    assert response.status_code == 200


async def test_rule_3_an_expired_token_past_the_grace_period_cannot_be_refreshed(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await expire_ago(admin_engine, device.token, timedelta(days=7, minutes=1))
    response = await call(client, "POST", "/v1/auth/refresh", device.headers)
    assert_unauthenticated(response, token_sent=True)


async def test_rule_3_a_revoked_token_can_never_be_refreshed(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    assert (await call(client, "POST", "/v1/auth/refresh", device.headers)).status_code == 200
    assert_unauthenticated(
        await call(client, "POST", "/v1/auth/refresh", device.headers), token_sent=True
    )
    await expire_ago(admin_engine, device.token, timedelta(minutes=5))
    assert_unauthenticated(
        await call(client, "POST", "/v1/auth/refresh", device.headers), token_sent=True
    )


# -- Rule 4: logout revokes the current session ---------------------------------------------------


async def test_rule_4_logout_revokes_the_current_session(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    response = await call(client, "POST", "/v1/auth/logout", device.headers)
    assert response.status_code == 204
    assert response.content == b""
    assert (await session_row(admin_engine, device.token)).revoked_at is not None
    for method, path in USER_ROUTES:
        assert_unauthenticated(await call(client, method, path, device.headers), token_sent=True)


# -- Rule 5: suspended: sessions kept, every user route 403 ---------------------------------------


@user_routes
async def test_rule_5_a_suspended_account_keeps_its_session_and_gets_403(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine, method: str, path: str
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    response = await call(client, method, path, device.headers)
    assert response.status_code == 403
    assert (await session_row(admin_engine, device.token)).revoked_at is None


async def test_rule_5_a_suspended_account_with_a_bad_credential_is_still_401(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    wrong = auth_headers(device.token, new_install_id())
    assert_unauthenticated(await call(client, "GET", "/v1/users/me", wrong), token_sent=True)


# -- Rule 6: being deleted: user routes 409 -------------------------------------------------------


@user_routes
async def test_rule_6_an_account_being_deleted_gets_409_on_user_routes(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, method: str, path: str
) -> None:
    device = await register(client)
    await set_account_status(admin_engine, device.user_id, "deleted")
    response = await call(client, method, path, device.headers)
    assert response.status_code == 409
    assert_retry_after(response)


# -- Rule 7: a user token is never an admin credential (and the reverse) --------------------------


@pytest.mark.parametrize(("method", "path"), ADMIN_ROUTES, ids=[p for _, p in ADMIN_ROUTES])
async def test_rule_7_a_user_session_token_is_never_accepted_on_admin_routes(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, method: str, path: str
) -> None:
    device = await register(client)
    response = await call(client, method, path.format(user_id=device.user_id), device.headers)
    assert_unauthenticated(response, token_sent=True)
    user = await call(client, "GET", "/v1/users/me", device.headers)
    assert user.status_code == 200, "the account was not touched"


@user_routes
async def test_rule_7_an_admin_token_is_not_accepted_on_user_routes(
    app: LisanApp, client: httpx.AsyncClient, method: str, path: str
) -> None:
    device = await register(client)
    token = await admin_token(app, Permission.USERS_READ, Permission.USERS_SUSPEND)
    response = await call(client, method, path, auth_headers(token, device.install_id))
    assert_unauthenticated(response, token_sent=True)


# -- Rule 8: register-device for a new install id needs no credential -----------------------------


async def test_rule_8_register_device_for_a_new_install_id_needs_no_authentication(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/v1/auth/register-device", json={"install_id": new_install_id()})
    assert_matches_contract(response)
    assert response.status_code == 200
    assert "www-authenticate" not in response.headers


async def test_rule_8_register_device_ignores_an_invalid_token_for_a_new_install_id(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post(
        "/v1/auth/register-device",
        json={"install_id": new_install_id()},
        headers={"Authorization": "Bearer lsn_s_garbage"},
    )
    assert_matches_contract(response)
    assert response.status_code == 200


# -- Rule 9: responses carrying credentials are not cached ----------------------------------------


async def test_rule_9_register_and_refresh_carry_cache_control_no_store(
    client: httpx.AsyncClient,
) -> None:
    install_id = new_install_id()
    registered = await client.post("/v1/auth/register-device", json={"install_id": install_id})
    assert_matches_contract(registered)
    assert registered.headers["cache-control"] == "no-store"
    token = registered.json()["session_token"]
    refreshed = await call(client, "POST", "/v1/auth/refresh", auth_headers(token, install_id))
    assert refreshed.headers["cache-control"] == "no-store"
    again = await client.post(
        "/v1/auth/register-device",
        json={"install_id": install_id},
        headers=auth_headers(refreshed.json()["session_token"], install_id),
    )
    assert_matches_contract(again)
    assert again.status_code == 200
    assert again.headers["cache-control"] == "no-store"


# -- Rule 10: every 401 carries WWW-Authenticate -------------------------------------------------

# How each kind of bad credential is built, and whether a bearer token counts as "sent".
# Another scheme offers no bearer token (RFC 6750 3.1: no error code); an empty Bearer does.
CREDENTIALS: dict[str, bool | None] = {
    "missing": False,
    "basic-scheme": False,
    "bearer-without-token": True,
    "garbage": True,
    "wrong-prefix": True,
    "bad-checksum": True,
    "truncated": True,
    "unknown": True,
    "admin-shaped": True,
    "expired": True,
    "revoked": True,
}


async def _bad_credential(
    kind: str, client: httpx.AsyncClient, engine: AsyncEngine, device: Device
) -> dict[str, str]:
    values = {
        "basic-scheme": "Basic dXNlcjpwYXNz",
        "bearer-without-token": "Bearer",
        "garbage": "Bearer not-a-token-at-all",
        "wrong-prefix": f"Bearer {_other_prefix(device.token)}",
        "bad-checksum": f"Bearer {_bad_checksum(device.token)}",
        "truncated": f"Bearer {device.token[:-1]}",
        "unknown": f"Bearer {tokens.new_token(tokens.SESSION_PREFIX)}",
        "admin-shaped": f"Bearer {forge(tokens.ADMIN_PREFIX, token_body(device.token))}",
    }
    headers = {"X-Install-ID": device.install_id}
    if kind in values:
        headers["Authorization"] = values[kind]
    elif kind == "expired":
        await expire_ago(engine, device.token, timedelta(days=30))  # past the 7-day grace too
        headers["Authorization"] = f"Bearer {device.token}"
    elif kind == "revoked":
        assert (await client.post("/v1/auth/logout", headers=device.headers)).status_code == 204
        headers["Authorization"] = f"Bearer {device.token}"
    return headers


@pytest.mark.parametrize("kind", list(CREDENTIALS))
@user_routes
async def test_rule_10_every_401_carries_www_authenticate(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, method: str, path: str, kind: str
) -> None:
    device = await register(client)
    headers = await _bad_credential(kind, client, admin_engine, device)
    response = await call(client, method, path, headers)
    assert_unauthenticated(response, token_sent=CREDENTIALS[kind])
    assert set(response.json()) == {"error"}


async def test_rule_10_a_401_names_no_token_when_none_was_sent(
    client: httpx.AsyncClient,
) -> None:
    response = await call(client, "GET", "/v1/users/me", {})
    assert_unauthenticated(response, token_sent=False)
    assert response.headers["www-authenticate"] == 'Bearer realm="lisan"'


async def test_rule_10_a_401_for_a_sent_token_says_invalid_token(
    client: httpx.AsyncClient,
) -> None:
    device = await register(client)
    response = await call(
        client, "GET", "/v1/users/me", {"Authorization": device.headers["Authorization"]}
    )
    assert response.headers["www-authenticate"] == 'Bearer realm="lisan", error="invalid_token"'
