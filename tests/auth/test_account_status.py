"""The contract's Account status table, the rows that concern sessions.

Suspension keeps sessions (every user route answers 403 until reinstated); reinstating makes
the very same token work again; an account being deleted answers 409 on user routes.
"""

from __future__ import annotations

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from tests.fixtures.accounts import reinstate, set_account_status, suspend, user_row
from tests.fixtures.answers import assert_retry_after
from tests.fixtures.devices import register
from tests.fixtures.sessions import USER_ROUTES, call, session_rows


async def test_active_to_suspended_keeps_sessions_and_user_routes_answer_403(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    before = await session_rows(admin_engine)
    await suspend(app, client, device)
    assert (await user_row(admin_engine, device.user_id)).status == "suspended"
    for method, path in USER_ROUTES:
        response = await call(client, method, path, device.headers)
        assert response.status_code == 403, f"{method} {path}"
        assert set(response.json()) == {"error"}
    after = await session_rows(admin_engine)
    assert [(r.id, r.revoked_at, r.expires_at) for r in after] == [
        (r.id, r.revoked_at, r.expires_at) for r in before
    ], "no session revoked, rotated or added while suspended"


async def test_suspended_to_suspended_is_idempotent_and_keeps_sessions(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    await suspend(app, client, device)
    assert (await call(client, "GET", "/v1/users/me", device.headers)).status_code == 403
    assert [r.revoked_at for r in await session_rows(admin_engine)] == [None]


async def test_suspended_to_active_the_same_token_works_again(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    # Refresh and logout while suspended are refused and change nothing.
    assert (await call(client, "POST", "/v1/auth/refresh", device.headers)).status_code == 403
    assert (await call(client, "POST", "/v1/auth/logout", device.headers)).status_code == 403
    await reinstate(app, client, device)
    me = await call(client, "GET", "/v1/users/me", device.headers)
    assert me.status_code == 200
    assert me.json()["user_id"] == str(device.user_id)
    assert (await call(client, "POST", "/v1/auth/refresh", device.headers)).status_code == 200


async def test_active_to_active_reinstate_leaves_the_session_working(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    await reinstate(app, client, device)
    assert (await call(client, "GET", "/v1/users/me", device.headers)).status_code == 200


async def test_deleted_user_routes_answer_409_and_register_too(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await set_account_status(admin_engine, device.user_id, "deleted")
    for method, path in USER_ROUTES:
        response = await call(client, method, path, device.headers)
        assert response.status_code == 409, f"{method} {path}"
        assert_retry_after(response)
    response = await client.post(
        "/v1/auth/register-device", json={"install_id": device.install_id}, headers=device.headers
    )
    assert response.status_code == 409
    assert_retry_after(response)
