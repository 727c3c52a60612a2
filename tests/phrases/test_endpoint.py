"""GET /v1/phrases: no authentication, am-ET by default, every key, limited per client IP."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from asgi_lifespan import LifespanManager

from lisan.app import create_app
from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.phrases.catalog import CATALOG
from lisan.phrases.schemas import PhraseKey
from tests.fixtures.answers import assert_retry_after
from tests.fixtures.app import client_for
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register

PHRASES = "/v1/phrases"


async def get_phrases(client: httpx.AsyncClient, **params: str) -> httpx.Response:
    response = await client.get(PHRASES, params=params)
    assert_matches_contract(response)
    return response


@pytest.mark.parametrize("language", ["am-ET", "en-US"])
async def test_the_catalog_of_a_language(client: httpx.AsyncClient, language: str) -> None:
    response = await get_phrases(client, language=language)
    assert response.status_code == 200
    body = response.json()
    assert body["language"] == language
    assert list(body["phrases"]) == [key.value for key in PhraseKey]
    assert body["phrases"] == {key.value: line for key, line in CATALOG[Locale(language)].items()}


async def test_without_a_language_it_is_am_et(client: httpx.AsyncClient) -> None:
    response = await get_phrases(client)
    assert response.status_code == 200
    assert response.json()["language"] == "am-ET"
    assert response.json()["phrases"]["ACK"] == "እሺ።"
    assert response.headers["content-type"].startswith("application/json")


async def test_it_needs_no_session_and_ignores_one(client: httpx.AsyncClient) -> None:
    device = await register(client)
    anonymous = await get_phrases(client, language="en-US")
    signed_in = await client.get(PHRASES, params={"language": "en-US"}, headers=device.headers)
    junk = await client.get(PHRASES, headers={"Authorization": "Bearer nonsense"})
    assert anonymous.status_code == signed_in.status_code == junk.status_code == 200
    assert anonymous.json() == signed_in.json()


@pytest.mark.parametrize("language", ["fr-FR", "am", "en", "AM-ET", "en_US", "", " am-ET"])
async def test_another_language_is_400(client: httpx.AsyncClient, language: str) -> None:
    response = await get_phrases(client, language=language)
    assert response.status_code == 400
    assert set(response.json()) == {"error"}
    assert "language" in response.json()["error"]


async def test_it_is_rate_limited_per_client_ip(settings_factory: Callable[..., Settings]) -> None:
    await clear_of_a_minute_boundary()
    app = create_app(settings_factory(rate_limit_user="3/minute"))
    async with LifespanManager(app):
        async with client_for(app) as client:
            statuses = [(await get_phrases(client)).status_code for _ in range(2)]
            bad = await get_phrases(client, language="fr-FR")  # a malformed call counts too
            limited = await get_phrases(client, language="en-US")
        assert (statuses, bad.status_code, limited.status_code) == ([200, 200], 400, 429)
        assert set(limited.json()) == {"error"}
        assert_retry_after(limited)
        transport = httpx.ASGITransport(app=app, client=("198.51.100.9", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as other:
            elsewhere = await get_phrases(other)
        assert elsewhere.status_code == 200


async def test_the_phrase_limit_is_its_own_budget(
    settings_factory: Callable[..., Settings],
) -> None:
    """Phrases count per IP, apart from the per-user budget of the signed-in routes."""
    await clear_of_a_minute_boundary()
    app = create_app(settings_factory(rate_limit_user="2/minute"))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)  # one /v1/users/me call from this user
        assert [(await get_phrases(client)).status_code for _ in range(3)] == [200, 200, 429]
        me = await client.get("/v1/users/me", headers=device.headers)
        assert me.status_code == 200
