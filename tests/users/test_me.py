"""GET /v1/users/me: the session's owner, their locale and stored preferences; per-user limits."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import create_app
from lisan.core.settings import Settings
from lisan.users.models import User
from tests.fixtures.accounts import user_row
from tests.fixtures.answers import assert_retry_after
from tests.fixtures.app import client_for
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.devices import register
from tests.fixtures.sessions import call

WAKE_WORDS = {"am-ET": "ሰላም ሊሳን", "en-US": "Hey Lisan"}


async def test_me_is_the_sessions_owner(client: httpx.AsyncClient) -> None:
    device = await register(client)
    other = await register(client)
    mine = await call(client, "GET", "/v1/users/me", device.headers)
    theirs = await call(client, "GET", "/v1/users/me", other.headers)
    assert mine.status_code == theirs.status_code == 200
    assert mine.json()["user_id"] == str(device.user_id)
    assert theirs.json()["user_id"] == str(other.user_id)
    assert device.user_id != other.user_id


@pytest.mark.parametrize("locale", ["am-ET", "en-US"])
async def test_me_holds_the_default_preferences_for_the_locale(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, locale: str
) -> None:
    device = await register(client, locale=locale)
    response = await call(client, "GET", "/v1/users/me", device.headers)
    assert response.json() == {
        "user_id": str(device.user_id),
        "locale": locale,
        "preferences": {"speech_rate": 100, "wake_word": WAKE_WORDS[locale]},
    }
    stored = await user_row(admin_engine, device.user_id)
    assert (stored.speech_rate, stored.wake_word) == (100, WAKE_WORDS[locale])


async def test_me_without_a_locale_is_am_et_with_its_wake_word(client: httpx.AsyncClient) -> None:
    device = await register(client)
    body = (await call(client, "GET", "/v1/users/me", device.headers)).json()
    assert body["locale"] == "am-ET"
    assert body["preferences"] == {"speech_rate": 100, "wake_word": "ሰላም ሊሳን"}


async def test_me_reads_the_preferences_stored_for_that_user(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    async with admin_engine.begin() as connection:
        await connection.execute(
            update(User).where(User.id == device.user_id).values(speech_rate=140, wake_word="Hi")
        )
    mine = (await call(client, "GET", "/v1/users/me", device.headers)).json()
    assert mine["preferences"] == {"speech_rate": 140, "wake_word": "Hi"}
    theirs = (await call(client, "GET", "/v1/users/me", other.headers)).json()
    assert theirs["preferences"] == {"speech_rate": 100, "wake_word": "ሰላም ሊሳን"}


async def test_me_reads_no_user_id_from_the_request(client: httpx.AsyncClient) -> None:
    device = await register(client)
    other = await register(client)
    response = await client.get(
        "/v1/users/me",
        params={"user_id": str(other.user_id), "userId": str(other.user_id)},
        headers={**device.headers, "X-User-ID": str(other.user_id)},
    )
    assert response.status_code == 200
    assert response.json()["user_id"] == str(device.user_id)


async def test_me_is_rate_limited_per_user(settings_factory: Callable[..., Settings]) -> None:
    await clear_of_a_minute_boundary()
    app = create_app(settings_factory(rate_limit_user="3/minute"))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)  # its one /v1/users/me call counts too
        other = await register(client)
        statuses = [
            (await call(client, "GET", "/v1/users/me", device.headers)).status_code
            for _ in range(2)
        ]
        assert statuses == [200, 200]
        limited = await call(client, "GET", "/v1/users/me", device.headers)
        assert limited.status_code == 429
        assert_retry_after(limited)
        # The same budget covers the user's other routes...
        refresh = await call(client, "POST", "/v1/auth/refresh", device.headers)
        assert refresh.status_code == 429
        # ...and another user, from the same client IP, is not affected.
        theirs = await call(client, "GET", "/v1/users/me", other.headers)
        assert theirs.status_code == 200
