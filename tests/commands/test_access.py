"""Who may command: a live session with its install id (401 otherwise), an account that is not
suspended (403) or being deleted (409), and no more commands than LISAN_RATE_LIMIT_COMMANDS per
user (429 with Retry-After), a limit of its own, apart from the user's other routes."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.core.settings import Settings
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.accounts import set_account_status, suspend
from tests.fixtures.answers import assert_error, assert_retry_after
from tests.fixtures.app import lisan_app
from tests.fixtures.commands import app_with, command, command_body, post, raw_body
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import ready_device
from tests.fixtures.rows import NO_COMMAND_ROWS, command_rows


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer lsn_s_not-a-real-token", "Basic dXNlcjpwYXNz"],
    ids=["none", "unknown token", "not bearer"],
)
async def test_without_a_valid_session_a_command_is_401(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    authorization: str | None,
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        headers = {"X-Install-ID": device.install_id}
        if authorization is not None:
            headers["Authorization"] = authorization
        response = await post(client, headers, raw_body(command_body()))
    assert_error(response, 401)
    assert "www-authenticate" in response.headers
    assert fake_openai.calls == 0
    assert await command_rows(admin_engine) == NO_COMMAND_ROWS


async def test_another_devices_install_id_is_401(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        other = await ready_device(client)
        headers = {**device.headers, "X-Install-ID": other.install_id}
        response = await post(client, headers, raw_body(command_body()))
    assert_error(response, 401)
    assert fake_openai.calls == 0


async def test_a_suspended_account_is_403(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        await suspend(lisan_app(client), client, device)
        response = await command(client, device, command_body())
    assert_error(response, 403)
    assert fake_openai.calls == 0
    assert await command_rows(admin_engine) == NO_COMMAND_ROWS


async def test_an_account_being_deleted_is_409_with_retry_after(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        # As DELETE /v1/consent/user-data leaves it (status `deleted`, job in flight).
        await set_account_status(admin_engine, device.user_id, "deleted")
        response = await command(client, device, command_body())
    assert_error(response, 409)
    assert_retry_after(response)
    assert fake_openai.calls == 0
    assert await command_rows(admin_engine) == NO_COMMAND_ROWS


async def test_commands_are_limited_per_user_with_retry_after(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(
        settings_factory, fake_openai.base_url, rate_limit_commands="2/minute"
    ) as client:
        device = await ready_device(client)
        other = await ready_device(client)
        allowed = [await command(client, device, command_body()) for _ in range(2)]
        limited = await command(client, device, command_body())
        calls_before_other = fake_openai.transcriptions.calls
        others = await command(client, other, command_body())
        me = await client.get("/v1/users/me", headers=device.headers)
    assert [r.status_code for r in allowed] == [200, 200]
    assert_error(limited, 429)
    assert 1 <= assert_retry_after(limited) <= 60
    assert calls_before_other == 2  # the limited command never reached the provider
    assert others.status_code == 200, "another user has a limit of their own"
    assert_matches_contract(me)
    assert me.status_code == 200, "the user's other routes are under LISAN_RATE_LIMIT_USER"


async def test_the_command_limit_is_apart_from_the_user_route_limit(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(
        settings_factory, fake_openai.base_url, rate_limit_user="2/minute"
    ) as client:
        # Registering reads /v1/users/me and granting posts an app grant: 2 of 2 user calls.
        device = await ready_device(client)
        me = await client.get("/v1/users/me", headers=device.headers)
        commands = [await command(client, device, command_body()) for _ in range(3)]
    assert_matches_contract(me)
    assert_error(me, 429)
    assert [r.status_code for r in commands] == [200, 200, 200]
