"""Who may call the consent routes: the session's owner, active, within the per-user limit."""

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
from tests.fixtures.consent import CURRENT, GRANTS, consent_rows, current, recorded
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register

BODY = {"scope": "audio_retention", "granted": True}

# (method, path, query, body) of every consent-grant route.
ROUTES: list[tuple[str, str, dict[str, str] | None, dict[str, Any] | None]] = [
    ("POST", GRANTS, None, BODY),
    ("GET", CURRENT, {"scope": "audio_retention"}, None),
]
ROUTE_IDS = ["record", "current"]


async def call(
    client: httpx.AsyncClient,
    route: tuple[str, str, dict[str, str] | None, dict[str, Any] | None],
    headers: dict[str, str],
) -> httpx.Response:
    method, path, params, body = route
    response = await client.request(method, path, params=params, json=body, headers=headers)
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
    assert await consent_rows(admin_engine) == []


async def test_credentials_are_checked_before_the_request(client: httpx.AsyncClient) -> None:
    response = await client.post(GRANTS, content=b"not json")
    assert_unauthenticated(response, token_sent=False)
    response = await client.get(CURRENT)
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
    assert await consent_rows(admin_engine) == []


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
    assert await consent_rows(admin_engine) == []


async def test_the_per_user_limit_applies_and_a_limited_call_stores_nothing(
    settings_factory: Callable[..., Settings], admin_engine: AsyncEngine
) -> None:
    app = create_app(settings_factory(rate_limit_user="2/minute"))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)  # its one /v1/users/me call counts too
        other = await register(client)
        await recorded(client, device, "audio_retention", True)
        for route in ROUTES:
            limited = await call(client, route, device.headers)
            assert limited.status_code == 429
            assert set(limited.json()) == {"error"}
            assert_retry_after(limited)
        # Another user, from the same client IP, has a budget of their own.
        assert (await current(client, other, "audio_retention"))["granted"] is False
    rows = await consent_rows(admin_engine)
    assert [(r.user_id, r.granted) for r in rows] == [(device.user_id, True)]
