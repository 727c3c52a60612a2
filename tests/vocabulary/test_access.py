"""Who may use the vocabulary routes: a live session of an active account, within its per-user
rate limit. Refused calls change nothing."""

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
from tests.fixtures.vocabulary import VOCABULARY, created, stored_count, stored_terms, term_path

ROUTE_IDS = ["list", "create", "patch", "delete"]


def routes(term_id: object) -> list[tuple[str, str, dict[str, Any] | None]]:
    """(method, path, body) of every vocabulary route, aimed at `term_id`."""
    return [
        ("GET", VOCABULARY, None),
        ("POST", VOCABULARY, {"term": "Kebede", "kind": "custom"}),
        ("PATCH", term_path(term_id), {"term": "Kebede"}),
        ("DELETE", term_path(term_id), None),
    ]


async def send(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    body: dict[str, Any] | None,
    headers: dict[str, str],
) -> httpx.Response:
    response = await client.request(method, path, json=body, headers=headers)
    assert_matches_contract(response)
    return response


@pytest.mark.parametrize("route", range(4), ids=ROUTE_IDS)
async def test_without_credentials_every_route_is_401(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, route: int
) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    method, path, body = routes(record["term_id"])[route]
    assert_unauthenticated(await send(client, method, path, body, {}), token_sent=False)
    only_install_id = {"X-Install-ID": device.install_id}
    assert_unauthenticated(
        await send(client, method, path, body, only_install_id), token_sent=False
    )
    without_install_id = {"Authorization": device.headers["Authorization"]}
    assert_unauthenticated(
        await send(client, method, path, body, without_install_id), token_sent=None
    )
    [row] = await stored_terms(admin_engine, device.user_id)
    assert row.term == "Abebe"


@pytest.mark.parametrize("route", range(4), ids=ROUTE_IDS)
async def test_a_suspended_account_gets_403_everywhere(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine, route: int
) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    await suspend(app, client, device)
    method, path, body = routes(record["term_id"])[route]
    response = await send(client, method, path, body, device.headers)
    assert response.status_code == 403
    assert set(response.json()) == {"error"}
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (row.term, await stored_count(admin_engine, device.user_id)) == ("Abebe", 1)


@pytest.mark.parametrize("route", range(4), ids=ROUTE_IDS)
async def test_an_account_being_deleted_gets_409_everywhere(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, route: int
) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    await set_account_status(admin_engine, device.user_id, "deleted")
    method, path, body = routes(record["term_id"])[route]
    response = await send(client, method, path, body, device.headers)
    assert response.status_code == 409
    assert_retry_after(response)
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (row.term, await stored_count(admin_engine, device.user_id)) == ("Abebe", 1)


async def test_the_routes_share_the_per_user_rate_limit(
    settings_factory: Callable[..., Settings], admin_engine: AsyncEngine
) -> None:
    app = create_app(settings_factory(rate_limit_user="3/minute"))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)  # its /v1/users/me call is the first of three
        other = await register(client)
        record = await created(client, device, "Abebe")
        listed = await send(client, "GET", VOCABULARY, None, device.headers)
        assert listed.status_code == 200
        for method, path, body in routes(record["term_id"]):
            response = await send(client, method, path, body, device.headers)
            assert response.status_code == 429, f"{method} {path}"
            assert_retry_after(response)
        [row] = await stored_terms(admin_engine, device.user_id)
        assert (row.term, await stored_count(admin_engine, device.user_id)) == ("Abebe", 1)
        # Another user, from the same client IP, keeps their own budget.
        theirs = await send(
            client, "POST", VOCABULARY, {"term": "Abebe", "kind": "app"}, other.headers
        )
        assert theirs.status_code == 201


async def test_the_user_comes_from_the_session_never_the_request(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    headers = {**device.headers, "X-User-ID": str(other.user_id)}
    response = await client.post(
        VOCABULARY,
        params={"user_id": str(other.user_id)},
        json={"term": "Abebe", "kind": "custom"},
        headers=headers,
    )
    assert response.status_code == 201
    assert len(await stored_terms(admin_engine, device.user_id)) == 1
    assert await stored_terms(admin_engine, other.user_id) == []
