"""Session tokens: their shape, what is stored of them, their binding and their lifetime."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import httpx
from asgi_lifespan import LifespanManager
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import create_app
from lisan.core.settings import Settings
from tests.fixtures.answers import assert_unauthenticated
from tests.fixtures.app import client_for
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import new_install_id, register
from tests.fixtures.sessions import auth_headers, session_row, session_rows, sha256


async def test_a_session_token_has_the_lsn_s_prefix(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/auth/register-device", json={"install_id": new_install_id()})
    assert_matches_contract(response)
    token = response.json()["session_token"]
    assert token.startswith("lsn_s_")
    assert len(token) > len("lsn_s_") + 32, "carries at least 256 bits of randomness"


async def test_every_session_token_is_different(client: httpx.AsyncClient) -> None:
    tokens = {(await register(client)).token for _ in range(5)}
    assert len(tokens) == 5


async def test_only_the_sha256_of_a_token_is_stored(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    rows = await session_rows(admin_engine)
    assert [row.token_hash for row in rows] == [sha256(device.token)]
    for row in rows:
        for value in row:
            stored = value if isinstance(value, bytes) else str(value).encode()
            assert device.token.encode() not in stored
            assert device.token[len("lsn_s_") :].encode() not in stored


async def test_a_session_is_bound_to_its_install_id(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    row = await session_row(admin_engine, device.token)
    assert row.install_id == device.install_id
    assert row.user_id == device.user_id
    response = await client.get(
        "/v1/users/me", headers=auth_headers(device.token, other.install_id)
    )
    assert_unauthenticated(response, token_sent=True)


async def test_the_session_lifetime_is_lisan_session_ttl_s(
    settings_factory: Callable[..., Settings], admin_engine: AsyncEngine
) -> None:
    app = create_app(settings_factory(session_ttl_s=1234))
    async with LifespanManager(app), client_for(app) as client:
        response = await client.post(
            "/v1/auth/register-device", json={"install_id": new_install_id()}
        )
        assert_matches_contract(response)
        assert response.json()["expires_in"] == 1234
        token = response.json()["session_token"]
        row = await session_row(admin_engine, token)
        assert row.expires_at - row.created_at == timedelta(seconds=1234)

        refreshed = await client.post(
            "/v1/auth/refresh", headers=auth_headers(token, row.install_id)
        )
        assert_matches_contract(refreshed)
        assert refreshed.json()["expires_in"] == 1234
        new_row = await session_row(admin_engine, refreshed.json()["session_token"])
        assert new_row.expires_at - new_row.created_at == timedelta(seconds=1234)


async def test_the_default_session_lifetime_is_30_days(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/auth/register-device", json={"install_id": new_install_id()})
    assert response.json()["expires_in"] == 2_592_000
