"""Who may call the app-grant routes: the session's owner, active, within the per-user limit."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp, create_app
from lisan.core.settings import Settings
from tests.fixtures.accounts import set_account_status, suspend
from tests.fixtures.answers import assert_retry_after, assert_unauthenticated
from tests.fixtures.app import client_for
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register
from tests.fixtures.grants import APP_GRANTS, grant_rows, listed, recorded

BODY = {"package_name": "com.example.app", "granted": True}

# (method, body) of every app-grant route (both on APP_GRANTS).
ROUTES: list[tuple[str, dict[str, Any] | None]] = [("POST", BODY), ("GET", None)]
ROUTE_IDS = ["record", "list"]


async def call(
    client: httpx.AsyncClient, route: tuple[str, dict[str, Any] | None], headers: dict[str, str]
) -> httpx.Response:
    method, body = route
    response = await client.request(method, APP_GRANTS, json=body, headers=headers)
    assert_matches_contract(response)
    return response


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
async def test_without_credentials_is_401_and_stores_nothing(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, route: Any
) -> None:
    assert_unauthenticated(await call(client, route, {}), token_sent=False)
    device = await register(client)
    bad_token = {**device.headers, "Authorization": "Bearer lsn_s_not-a-real-token"}
    assert_unauthenticated(await call(client, route, bad_token), token_sent=True)
    without_install_id = {"Authorization": device.headers["Authorization"]}
    assert_unauthenticated(await call(client, route, without_install_id), token_sent=None)
    assert await grant_rows(admin_engine) == []


async def test_credentials_are_checked_before_the_body(client: httpx.AsyncClient) -> None:
    response = await client.post(APP_GRANTS, content=b"not json")
    assert_unauthenticated(response, token_sent=False)


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
async def test_a_suspended_account_is_403_and_stores_nothing(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine, route: Any
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    response = await call(client, route, device.headers)
    assert response.status_code == 403
    assert set(response.json()) == {"error"}
    assert await grant_rows(admin_engine) == []


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
async def test_an_account_being_deleted_is_409_and_stores_nothing(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, route: Any
) -> None:
    device = await register(client)
    await set_account_status(admin_engine, device.user_id, "deleted")
    response = await call(client, route, device.headers)
    assert response.status_code == 409
    assert set(response.json()) == {"error"}
    assert_retry_after(response)
    assert await grant_rows(admin_engine) == []


async def test_the_per_user_limit_applies_and_a_limited_call_stores_nothing(
    settings_factory: Callable[..., Settings], admin_engine: AsyncEngine
) -> None:
    app = create_app(settings_factory(rate_limit_user="2/minute"))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)  # its one /v1/users/me call counts too
        other = await register(client)
        await recorded(client, device, "com.example.app", True)
        for route in ROUTES:
            limited = await call(client, route, device.headers)
            assert limited.status_code == 429
            assert set(limited.json()) == {"error"}
            assert_retry_after(limited)
        # Another user, from the same client IP, has a budget of their own.
        assert await listed(client, other) == []
    rows = await grant_rows(admin_engine)
    assert [(r.user_id, r.granted) for r in rows] == [(device.user_id, True)]
