"""Admin routes are rate limited (LISAN_RATE_LIMIT_USER) per credential name, or per client IP."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.admin.models import Permission
from lisan.app import LisanApp, create_app
from lisan.core.settings import Settings
from tests.fixtures.admin import admin_token, audit_rows, bearer, user_path
from tests.fixtures.app import client_for
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, register

# The client address client_for() gives every request.
CLIENT_IP = "203.0.113.7"


@pytest.fixture
async def limited_app(settings_factory: Callable[..., Settings]) -> AsyncIterator[LisanApp]:
    await clear_of_a_minute_boundary()  # a test that spends the budget starts inside a minute
    app = create_app(settings_factory(rate_limit_user="2/minute"))
    async with LifespanManager(app):
        yield app


@pytest.fixture
async def limited_client(limited_app: LisanApp) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(limited_app) as client:
        yield client


@pytest.fixture
async def target(limited_client: httpx.AsyncClient) -> Device:
    return await register(limited_client)


async def test_the_call_past_the_limit_is_429_with_retry_after_and_writes_no_audit_row(
    limited_app: LisanApp,
    limited_client: httpx.AsyncClient,
    target: Device,
    admin_engine: AsyncEngine,
) -> None:
    token = await admin_token(limited_app, Permission.USERS_READ, name="busy")
    responses = [
        await limited_client.get(user_path(target.user_id), headers=bearer(token)) for _ in range(3)
    ]
    for response in responses:
        assert_matches_contract(response)
    assert [r.status_code for r in responses] == [200, 200, 429]
    retry_after = responses[2].headers["retry-after"]
    assert retry_after.isdigit()
    assert int(retry_after) >= 1
    # Refused before any database write: the access log is its record.
    rows = await audit_rows(admin_engine)
    assert [(row.outcome, row.admin_name) for row in rows] == [("ok", "busy")] * 2
    assert responses[2].headers["x-request-id"] not in {row.request_id for row in rows}


async def test_the_limit_is_per_credential(
    limited_app: LisanApp, limited_client: httpx.AsyncClient, target: Device
) -> None:
    first = await admin_token(limited_app, Permission.USERS_READ, name="first")
    second = await admin_token(limited_app, Permission.USERS_READ, name="second")
    for _ in range(2):
        await limited_client.get(user_path(target.user_id), headers=bearer(first))
    spent = await limited_client.get(user_path(target.user_id), headers=bearer(first))
    other = await limited_client.get(user_path(target.user_id), headers=bearer(second))
    assert_matches_contract(spent)
    assert spent.status_code == 429
    assert_matches_contract(other)
    assert other.status_code == 200


async def test_without_a_credential_the_limit_is_per_client_ip(
    limited_app: LisanApp,
    limited_client: httpx.AsyncClient,
    target: Device,
    admin_engine: AsyncEngine,
) -> None:
    path = user_path(target.user_id, "/suspend")
    responses = [await limited_client.post(path) for _ in range(3)]
    transport = httpx.ASGITransport(app=limited_app, client=("198.51.100.9", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as elsewhere:
        other_ip = await elsewhere.post(path)
    for response in (*responses, other_ip):
        assert_matches_contract(response)
    assert [r.status_code for r in responses] == [401, 401, 429]
    assert int(responses[2].headers["retry-after"]) >= 1
    assert other_ip.status_code == 401
    rows = await audit_rows(admin_engine)
    assert [row.outcome for row in rows] == ["unauthenticated"] * 3  # two here, one elsewhere
    assert responses[2].headers["x-request-id"] not in {row.request_id for row in rows}


async def test_anonymous_calls_do_not_spend_the_budget_of_a_credential(
    limited_app: LisanApp, limited_client: httpx.AsyncClient, target: Device
) -> None:
    token = await admin_token(limited_app, Permission.USERS_READ, name=CLIENT_IP)
    for _ in range(2):
        await limited_client.get(user_path(target.user_id))
    response = await limited_client.get(user_path(target.user_id), headers=bearer(token))
    assert_matches_contract(response)
    assert response.status_code == 200
