"""A remote planner's TAP runs only when the transcript names what it taps: the service reads
the transcript's words against what the node shows, and asks about a tap they do not name."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.plans.naming import ask_unnamed_taps
from lisan.plans.safe import SafePlan, SafeStep
from lisan.screen.viewtree import ViewTree
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.commands import app_with, command, command_body, say
from tests.fixtures.devices import TELEGRAM, ready_device

SCREEN = """[n1] FrameLayout
  [n2] TextView "Chats" {clickable}
  [n3] EditText "Message" {editable}
  [n4] Button "Contacts" {clickable}
  [n5] LinearLayout {clickable}
    [n6] TextView "Go to the top"
  [n7] Button "አበበ" {clickable}
  [n8] Button "Settings" {clickable}"""


def _asked(node: str, transcript: str) -> bool:
    plan = SafePlan(TELEGRAM, (SafeStep("TAP", node, None, False),), False)
    (step,) = ask_unnamed_taps(plan, ViewTree(SCREEN), transcript).steps
    return step.asked


@pytest.mark.parametrize(
    ("node", "transcript"),
    [
        ("n2", "open my chats"),  # the same word
        ("n2", "open chat"),  # a near spelling
        ("n4", "show me the contact list"),  # a near spelling of a long word
        ("n7", "አበበን ንካ"),  # a Ge'ez inflection: the same consonants
        ("n6", "tap go to the top"),  # the row that receives the click, by what is under it
        ("n3", "write hello"),  # a text field only takes focus
    ],
)
def test_a_tap_the_transcript_names_is_not_asked(node: str, transcript: str) -> None:
    assert not _asked(node, transcript)


@pytest.mark.parametrize(
    ("node", "transcript"),
    [
        ("n2", "open settings"),  # another node's label
        ("n6", "go to the settings"),  # only words a command is said with in common
        ("n7", "tap abebe"),  # another script: the service cannot read that it is the same
        ("n99", "tap chats"),  # no such node: nothing names it
    ],
)
def test_a_tap_the_transcript_does_not_name_is_asked(node: str, transcript: str) -> None:
    assert _asked(node, transcript)


async def test_through_the_route_an_unnamed_tap_is_asked_by_name_and_a_named_one_runs(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """The planner taps "Chats": run at once for "tap chats"; for "open settings" (a
    transcript the planner did not follow, or a transcriber that misheard) the phone asks,
    naming the node."""
    fake_openai.completions.default = Answer.plan(sent.plan(sent.step("TAP", "n2")))
    bodies = []
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client, TELEGRAM)
        for transcript in ("tap chats", "open settings"):
            say(fake_openai, transcript)
            response = await command(client, device, command_body(tree=SCREEN))
            bodies.append(response.json())
    named, unnamed = bodies
    assert named["status"] == "ACCEPTED"
    assert unnamed["status"] == "CONFIRMATION_REQUIRED"
    assert unnamed["speech_response_text"].startswith("Tap “Chats”?")
    assert unnamed["action_plan"]["steps"][0]["is_destructive"] is False
