"""Local first: with a remote provider, the rules plan the commands they know and a language
model plans only the rest (`LISAN_PLAN_LOCAL_FIRST`, on by default). A command the rules plan
makes no call to the planner, so it is served while the planner's circuit is open; which
planner planned is the `planner` label of `lisan_commands_total` and the `rules_planning` key
of the command event's timings."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.commands.rules_first import rules_words
from lisan.core.settings import Settings
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.answers import assert_error
from tests.fixtures.commands import app_with, command, command_body, plan, say, step
from tests.fixtures.devices import TELEGRAM, ready_device
from tests.fixtures.metrics import sample
from tests.fixtures.rows import command_events

AMHARIC_SCREEN = """[n1] FrameLayout
  [n2] TextView "መልእክቶች" {clickable}
  [n3] EditText "መልእክት" {editable}
  [n4] Button "ላክ" {clickable}"""


def _planned_by(planner: str, status: str = "ACCEPTED") -> float:
    return sample("lisan_commands_total", status=status, reason="none", planner=planner)


# --- what the rules know, they plan ---------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "language", "tree", "target"),
    [
        ("Tap Chats.", "en-US", None, "n2"),
        ("tap chats please", "en-US", None, "n2"),
        ("መልእክቶች ንካ።", "am-ET", AMHARIC_SCREEN, "n2"),
    ],
    ids=["english-as-written", "english-courtesy", "amharic"],
)
async def test_a_command_the_rules_know_is_planned_without_a_call_to_the_planner(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    said: str,
    language: str,
    tree: str | None,
    target: str,
) -> None:
    say(fake_openai, said)
    before = _planned_by("rules")
    body = (
        command_body(language=language)
        if tree is None
        else command_body(language=language, tree=tree)
    )
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        answer = (await command(client, device, body)).json()
    assert answer["status"] == "ACCEPTED", answer
    assert [(s["action_type"], s["target_node_id"]) for s in answer["action_plan"]["steps"]] == [
        ("TAP", target)
    ]
    assert fake_openai.completions.calls == 0
    assert _planned_by("rules") == before + 1
    (event,) = await command_events(admin_engine)
    assert "rules_planning" in event.server_timings
    assert "planning" not in event.server_timings


async def test_an_instruction_the_rules_do_not_know_reaches_the_planner(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    say(fake_openai, "open the last chat I had with Abebe")
    fake_openai.completions.then(Answer.plan(plan(step("TAP", "n6"))))
    before = _planned_by("model", "CONFIRMATION_REQUIRED") + _planned_by("model")
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        answer = (await command(client, device, command_body())).json()
    assert answer["status"] in {"ACCEPTED", "CONFIRMATION_REQUIRED"}
    assert fake_openai.completions.calls == 1
    assert _planned_by("model", "CONFIRMATION_REQUIRED") + _planned_by("model") == before + 1
    (event,) = await command_events(admin_engine)
    assert {"rules_planning", "planning"} <= set(event.server_timings)


@pytest.mark.parametrize(
    "said",
    [
        # The rules read one command: "tap Abebe and delete the chat" would be one tap to them.
        "tap abebe and delete the chat",
        # The rules read commands, which are short: a long transcript is the model's to read.
        "tap the chats I had with abebe yesterday at the office near the old station",
    ],
    ids=["two-commands-in-one-breath", "longer-than-a-command"],
)
async def test_what_the_rules_would_read_only_in_part_goes_to_the_planner(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, said: str
) -> None:
    say(fake_openai, said)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        await command(client, device, command_body())
    assert fake_openai.completions.calls == 1


async def test_with_local_first_off_every_command_goes_to_the_planner(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    say(fake_openai, "tap chats")
    async with app_with(settings_factory, fake_openai.base_url, plan_local_first=False) as client:
        device = await ready_device(client)
        await command(client, device, command_body())
    assert fake_openai.completions.calls == 1
    (event,) = await command_events(admin_engine)
    assert "rules_planning" not in event.server_timings


# --- the planner's faults reach only what needs it --------------------------------------------


async def test_with_the_planner_s_circuit_open_a_known_command_is_still_served(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.default = Answer.error(500)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client, TELEGRAM)
        failing = [await command(client, device, command_body()) for _ in range(5)]
        assert fake_openai.completions.calls == 5
        say(fake_openai, "tap chats")
        known = await command(client, device, command_body())
        say(fake_openai, "show me my latest chats")
        unknown = await command(client, device, command_body())
    assert [r.status_code for r in failing] == [503] * 5
    assert known.status_code == 200
    assert known.json()["status"] == "ACCEPTED"
    assert_error(unknown, 503)
    assert fake_openai.completions.calls == 5, "an open circuit sends no request"


# --- how the rules read a remote transcript --------------------------------------------------


@pytest.mark.parametrize(
    ("transcript", "read"),
    [
        ("Tap Send.", "tap send"),
        ("  Turn on   Wi-Fi, please!  ", "turn on wi-fi please"),
        ("ፒዛ ፈልግ።", "ፒዛ ፈልግ"),
        ("«Open» “Telegram”", "open telegram"),
        ("...", ""),
    ],
)
def test_the_rules_read_words_in_lower_case_without_their_edge_punctuation(
    transcript: str, read: str
) -> None:
    assert rules_words(transcript) == read
