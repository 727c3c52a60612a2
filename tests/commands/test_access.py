"""The command limit (LISAN_RATE_LIMIT_COMMANDS, per user) is one of its own: a user over it
still reaches their other routes, and a user over LISAN_RATE_LIMIT_USER may still command. Who
may command at all (401, 403, 409, 429) is walked with every user route in
tests/auth/test_account_status.py."""

from __future__ import annotations

from collections.abc import Callable

from lisan.core.settings import Settings
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.answers import assert_error, assert_retry_after
from tests.fixtures.commands import app_with, command, command_body
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import ready_device


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
