"""An ungranted app's screen never leaves the machine: a remote planner learns only that the
screen is hidden, never its package or its texts. A granted app's screen goes to the planner, and
a grant revoked hides it from the next command."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.providers.prompts import SCREEN_BEGIN, SCREEN_HIDDEN
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import app_with, command, command_body, plan, say, step
from tests.fixtures.devices import TELEGRAM, ready_device
from tests.fixtures.plans import BANK, BANK_SCREEN, CHAT_SCREEN, outcome


@pytest.mark.parametrize("current_package", [BANK, "", "not a package"])
async def test_the_planner_never_sees_an_ungranted_screen(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, current_package: str
) -> None:
    """An ungranted app's screen, package and texts never reach a remote planner: it learns the
    screen is hidden."""
    fake_openai.completions.then(Answer.plan(plan(step("HOME", None), package=TELEGRAM)))
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client, TELEGRAM)
        body = command_body(package=current_package, tree=BANK_SCREEN)
        assert (await command(client, device, body)).status_code == 200
    sent = fake_openai.completions.last.messages[1]["content"]
    assert SCREEN_HIDDEN in sent
    assert SCREEN_BEGIN not in sent
    for secret in ("Balance", "12,500", "Transfer", "[n5]"):
        assert secret not in sent
    if current_package:
        assert current_package not in sent


async def test_a_granted_screen_goes_to_the_planner(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A granted app's screen goes to the planner, fenced, with its package."""
    fake_openai.completions.then(Answer.plan(plan(step("TAP", "n2"))))
    say(fake_openai, "show me the chats")  # an instruction the rules leave to the planner
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client, TELEGRAM)
        body = command_body(package=TELEGRAM, tree=CHAT_SCREEN)
        assert (await command(client, device, body)).json()["status"] == "ACCEPTED"
    sent = fake_openai.completions.last.messages[1]["content"]
    assert SCREEN_HIDDEN not in sent
    assert TELEGRAM in sent
    assert '[n4] Button "Send"' in sent


async def test_a_revoked_grant_hides_the_screen_from_the_next_command(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A grant revoked hides the app's screen from the next command's planner, and its plan is
    `app_not_granted`."""
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client, TELEGRAM)
        revoked = await client.post(
            "/v1/app-grants",
            json={"package_name": TELEGRAM, "granted": False},
            headers=device.headers,
        )
        assert revoked.status_code == 200
        fake_openai.completions.then(Answer.plan(plan(step("TAP", "n4"))))
        body = (await command(client, device, command_body(tree=CHAT_SCREEN))).json()
    assert outcome(body) == ("REJECTED", "app_not_granted")
    assert SCREEN_HIDDEN in fake_openai.completions.last.messages[1]["content"]
