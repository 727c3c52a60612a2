"""POST /v1/auth/refresh and POST /v1/auth/logout: rotation, the grace period, revocation, races."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp, create_app
from lisan.auth import service
from lisan.core.errors import NotAuthenticated
from lisan.core.settings import Settings
from tests.fixtures.answers import assert_unauthenticated
from tests.fixtures.app import client_for
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, register
from tests.fixtures.sessions import auth_headers, expire_ago, session_row, session_rows

GRACE_S = 3600


async def _refresh(client: httpx.AsyncClient, token: str, install_id: str) -> httpx.Response:
    response = await client.post("/v1/auth/refresh", headers=auth_headers(token, install_id))
    assert_matches_contract(response)
    return response


async def _me(client: httpx.AsyncClient, token: str, install_id: str) -> httpx.Response:
    response = await client.get("/v1/users/me", headers=auth_headers(token, install_id))
    assert_matches_contract(response)
    return response


@pytest.fixture
async def grace_client(
    settings_factory: Callable[..., Settings],
) -> AsyncIterator[httpx.AsyncClient]:
    """A service whose refresh grace period is GRACE_S."""
    app = create_app(settings_factory(refresh_grace_s=GRACE_S))
    async with LifespanManager(app), client_for(app) as client:
        yield client


# -- refresh ------------------------------------------------------------------------------------


async def test_refresh_rotates_the_token(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    response = await _refresh(client, device.token, device.install_id)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "refreshed"
    assert body["session_token"].startswith("lsn_s_")
    assert body["session_token"] != device.token
    assert response.headers["cache-control"] == "no-store"

    assert_unauthenticated(await _me(client, device.token, device.install_id), token_sent=True)
    me = await _me(client, body["session_token"], device.install_id)
    assert me.status_code == 200
    assert me.json()["user_id"] == str(device.user_id)
    old = await session_row(admin_engine, device.token)
    assert old.revoked_at is not None
    new = await session_row(admin_engine, body["session_token"])
    assert (new.install_id, new.revoked_at) == (device.install_id, None)


async def test_a_refreshed_token_stays_bound_to_the_install_id(
    client: httpx.AsyncClient,
) -> None:
    device = await register(client)
    other = await register(client)
    token = (await _refresh(client, device.token, device.install_id)).json()["session_token"]
    assert_unauthenticated(await _me(client, token, other.install_id), token_sent=True)


async def test_the_old_token_cannot_be_refreshed_again(client: httpx.AsyncClient) -> None:
    device = await register(client)
    assert (await _refresh(client, device.token, device.install_id)).status_code == 200
    assert_unauthenticated(await _refresh(client, device.token, device.install_id), token_sent=True)


async def test_an_expired_token_within_the_grace_period_can_be_refreshed(
    grace_client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(grace_client)
    await expire_ago(admin_engine, device.token, timedelta(seconds=GRACE_S - 60))
    assert_unauthenticated(
        await _me(grace_client, device.token, device.install_id), token_sent=True
    )
    response = await _refresh(grace_client, device.token, device.install_id)
    assert response.status_code == 200
    assert response.json()["status"] == "refreshed"
    assert (await _me(grace_client, response.json()["session_token"], device.install_id)).is_success


async def test_an_expired_token_past_the_grace_period_is_401(
    grace_client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(grace_client)
    await expire_ago(admin_engine, device.token, timedelta(seconds=GRACE_S + 60))
    response = await _refresh(grace_client, device.token, device.install_id)
    assert_unauthenticated(response, token_sent=True)
    assert len(await session_rows(admin_engine)) == 1, "no session was issued"


async def test_a_revoked_token_is_never_refreshed_even_within_the_grace_period(
    grace_client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(grace_client)
    assert (await grace_client.post("/v1/auth/logout", headers=device.headers)).status_code == 204
    assert_unauthenticated(
        await _refresh(grace_client, device.token, device.install_id), token_sent=True
    )
    await expire_ago(admin_engine, device.token, timedelta(seconds=60))
    assert_unauthenticated(
        await _refresh(grace_client, device.token, device.install_id), token_sent=True
    )


async def _refresh_at_once(client: httpx.AsyncClient, device: Device, count: int) -> list[int]:
    responses = await asyncio.gather(
        *(client.post("/v1/auth/refresh", headers=device.headers) for _ in range(count))
    )
    for response in responses:
        assert_matches_contract(response)
        if response.status_code == 401:
            assert_unauthenticated(response, token_sent=True)
    return sorted(response.status_code for response in responses)


@pytest.mark.parametrize("count", [2, 10])
async def test_concurrent_refreshes_of_one_token_have_exactly_one_winner(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, count: int
) -> None:
    device = await register(client)
    statuses = await _refresh_at_once(client, device, count)
    assert statuses == [200] + [401] * (count - 1)
    live = [row for row in await session_rows(admin_engine) if row.revoked_at is None]
    assert len(live) == 1, "one live session after the race"


# -- logout -------------------------------------------------------------------------------------


async def test_logout_is_204_with_an_empty_body_and_revokes_the_session(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    response = await client.post("/v1/auth/logout", headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 204
    assert response.content == b""
    assert (await session_row(admin_engine, device.token)).revoked_at is not None
    assert_unauthenticated(await _me(client, device.token, device.install_id), token_sent=True)


async def test_a_logged_out_token_cannot_log_out_again(client: httpx.AsyncClient) -> None:
    device = await register(client)
    assert (await client.post("/v1/auth/logout", headers=device.headers)).status_code == 204
    again = await client.post("/v1/auth/logout", headers=device.headers)
    assert_unauthenticated(again, token_sent=True)


async def test_logout_leaves_other_devices_signed_in(client: httpx.AsyncClient) -> None:
    device = await register(client)
    other = await register(client)
    assert (await client.post("/v1/auth/logout", headers=device.headers)).status_code == 204
    assert (await _me(client, other.token, other.install_id)).status_code == 200


async def test_a_refresh_racing_a_re_registration_leaves_one_live_session(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    refresh, registration = await asyncio.gather(
        client.post("/v1/auth/refresh", headers=device.headers),
        client.post(
            "/v1/auth/register-device",
            json={"install_id": device.install_id},
            headers=device.headers,
        ),
    )
    assert_matches_contract(refresh)
    assert_matches_contract(registration)
    assert sorted([refresh.status_code, registration.status_code]) in ([200, 401], [200, 409])
    live = [row for row in await session_rows(admin_engine) if row.revoked_at is None]
    assert len(live) == 1


async def test_logout_that_lost_a_race_to_a_refresh_is_401(app: LisanApp) -> None:
    """Logout answers 204 only if it revoked the session; one replaced meanwhile is a 401."""
    resources = app.services.resources
    async with client_for(app) as client:
        device = await register(client)
        principal = await service.authenticate(
            resources.database.reads,
            resources.settings,
            device.headers["Authorization"],
            device.install_id,
        )
        refreshed = await client.post("/v1/auth/refresh", headers=device.headers)
    assert refreshed.status_code == 200
    with pytest.raises(NotAuthenticated):
        async with resources.database.transaction() as db:
            await service.logout(db, principal)
