"""A per-client-IP limit in front of every credential look-up (forged but
well-formed tokens and unknown admin credentials each cost a query, with nothing in front)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable

import httpx
import pytest
from asgi_lifespan import LifespanManager

from lisan.app import LisanApp, create_app
from lisan.core import tokens
from lisan.core.settings import Settings
from tests.fixtures.admin import bearer
from tests.fixtures.app import client_for
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.statements import count_statements


@pytest.fixture
async def shielded_app(settings_factory: Callable[..., Settings]) -> AsyncIterator[LisanApp]:
    await clear_of_a_minute_boundary()
    app = create_app(settings_factory(rate_limit_ip="3/minute"))
    async with LifespanManager(app):
        yield app


@pytest.mark.parametrize(
    ("path", "prefix"),
    [("/v1/users/me", tokens.SESSION_PREFIX), ("/v1/admin/users/x", tokens.ADMIN_PREFIX)],
    ids=["session", "admin"],
)
async def test_forged_tokens_past_the_ip_limit_cost_no_query(
    shielded_app: LisanApp, path: str, prefix: str
) -> None:
    async with client_for(shielded_app) as client:
        forged = [bearer(tokens.new_token(prefix)) for _ in range(5)]
        answered = [await client.get(path, headers=headers) for headers in forged[:3]]
        with count_statements(shielded_app) as statements:
            refused = [await client.get(path, headers=headers) for headers in forged[3:]]
    for response in (*answered, *refused):
        assert_matches_contract(response)
    assert [r.status_code for r in answered] == [401] * 3
    assert [r.status_code for r in refused] == [429] * 2
    assert int(refused[0].headers["retry-after"]) >= 1
    assert statements == []  # no look-up, and no audit row either


async def test_the_ip_limit_is_per_address(shielded_app: LisanApp) -> None:
    forged = bearer(tokens.new_token(tokens.SESSION_PREFIX))
    async with client_for(shielded_app) as client:
        for _ in range(3):
            await client.get("/v1/users/me", headers=forged)
        spent = await client.get("/v1/users/me", headers=forged)
    transport = httpx.ASGITransport(app=shielded_app, client=("198.51.100.9", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
        elsewhere = await other.get("/v1/users/me", headers=forged)
    assert (spent.status_code, elsewhere.status_code) == (429, 401)
