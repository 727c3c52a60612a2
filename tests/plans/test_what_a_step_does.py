"""A step is destructive when what it acts on says so, whatever the planner said: for a TAP the
clicked node and everything under it, for a TEXT_INPUT or a SCROLL its target's subtree; a
generic answer ("OK", "አዎ", "Continue") means what the message it answers says. The rules only
ever upgrade a step, never the planner's `true` down."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.screen.viewtree import ViewTree
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import TELEGRAM
from tests.fixtures.plans import ACCEPTED, CHAT_SCREEN, CONFIRM, run_cases
from tests.fixtures.rules import plan, step, validated


def test_a_destructive_child_makes_its_clickable_parent_destructive() -> None:
    """A step on a node means what its subtree says: a destructive child makes its clickable
    parent destructive."""
    tree = ViewTree(
        '[r] LinearLayout {clickable}\n  [c] TextView "Delete account"\n[o] View {clickable}'
    )
    assert validated(plan(step(target_node_id="r")), tree=tree).steps[0].is_destructive
    assert not validated(plan(step(target_node_id="o")), tree=tree).steps[0].is_destructive


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ('[t] Button "Delete" {clickable}', "text"),
        ('[t] Button "Deleted items" {clickable}', "a prefix counts: the safe side"),
        ('[t] ImageButton desc="Send message" {clickable}', "desc"),
        ('[t] Button "🗑" desc="Remove" {clickable}', "desc when the text is not a word"),
        ('[t] Button "ሰርዝ" {clickable}', "Amharic text"),
        ('[t] Button desc="ገንዘብ አስተላልፍ" {clickable}', "Amharic desc"),
        ('[t] TextView "Chats" desc="Delete chat" {clickable}', "desc behind a harmless text"),
    ],
)
def test_a_step_on_a_destructive_looking_node_is_destructive_whatever_the_planner_says(
    line: str, reason: str
) -> None:
    """A step on a node whose text or description reads destructive is destructive, whatever
    the planner said."""
    safe = validated(plan(step(target_node_id="t", is_destructive=False)), tree=ViewTree(line))
    assert safe.steps[0].is_destructive, reason
    assert safe.asked_steps() == (safe.steps[0],)


def test_the_upgrade_never_downgrades_the_planner() -> None:
    """The rules only ever upgrade a step: the planner's `true` stays."""
    safe = validated(plan(step(target_node_id="n2", is_destructive=True)))
    assert safe.steps[0].is_destructive


def test_harmless_nodes_keep_the_planners_false() -> None:
    """A step on a harmless node keeps the planner's `false`."""
    raw = plan(step(target_node_id="n2"), step(target_node_id="n9"), step(action_type="BACK"))
    assert not any(s.is_destructive for s in validated(raw).steps)


def test_only_the_target_node_is_read_not_the_payload() -> None:
    """The upgrade reads the screen, not the payload: the planner's flag decides for what a step
    types."""
    raw = plan(
        step(action_type="TEXT_INPUT", target_node_id="n3", payload="delete everything"),
        step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
    )
    assert not any(s.is_destructive for s in validated(raw).steps)


async def test_a_container_reads_as_its_children_do(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: a clickable row holding "Delete account" is destructive; its harmless
    sibling is not."""
    cases = {
        "a clickable row holding Delete account": (
            sent.plan(sent.step("TAP", "n5", destructive=False)),
            TELEGRAM,
            CHAT_SCREEN,
            ("CONFIRMATION_REQUIRED", None),
        ),
        "a harmless sibling stays harmless": (
            sent.plan(sent.step("TAP", "n7", destructive=False)),
            TELEGRAM,
            CHAT_SCREEN,
            ("ACCEPTED", None),
        ),
    }
    first, _ = await run_cases(settings_factory, fake_openai, cases)
    assert first["action_plan"]["steps"][0]["is_destructive"] is True


# A gallery with a dialog over it: the buttons say only "OK" and "Cancel".
PHOTO_DIALOG = """[n1] FrameLayout
  [n2] TextView "Photos"
  [n3] TextView "Albums"
  [n4] TextView "Shared"
  [n5] TextView "Search"
  [n6] TextView "Library"
  [n7] TextView "Settings"
  [n8] LinearLayout
    [n9] TextView "Remove 12 photos? This can't be undone."
    [n10] LinearLayout
      [n11] Button "Cancel" {clickable}
      [n12] Button "OK" {clickable}"""


# The same dialog in Amharic, alone on the screen: the screen as a whole is the dialog.
AMHARIC_DIALOG = """[n1] FrameLayout
  [n2] TextView "12 ፎቶዎችን ይሰርዙ? ይህ ሊቀለበስ አይችልም።"
  [n3] Button "ይቅር" {clickable}
  [n4] Button "አዎ" {clickable}"""


# A window of class AlertDialog: read whole, wherever its message stands.
ALERT_DIALOG = """[n1] AlertDialog
  [n2] TextView "Transfer 5,000 Birr to Abebe?"
  [n3] LinearLayout
    [n4] Button "Continue" {clickable}"""


# A harmless "OK" on a busy screen: its container says nothing consequential.
HARMLESS_OK = """[n1] FrameLayout
  [n2] TextView "Chats"
  [n3] TextView "Calls"
  [n4] TextView "Status"
  [n5] TextView "Archived"
  [n6] TextView "Starred"
  [n7] TextView "Settings"
  [n8] LinearLayout
    [n9] TextView "Your backup is up to date."
    [n10] Button "OK" {clickable}
  [n11] Button "Delete all chats" {clickable}"""


async def test_a_generic_answer_means_what_the_message_beside_it_says(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A tap on a generic answer ("OK", "አዎ", "Continue") means what the message it answers says:
    its container's, or a dialog-like screen's as a whole; a dismissal is no answer."""
    cases = {
        "OK under 'Remove 12 photos?'": (
            sent.plan(sent.step("TAP", "n12")),
            TELEGRAM,
            PHOTO_DIALOG,
            CONFIRM,
        ),
        "አዎ on a screen that is the dialog": (
            sent.plan(sent.step("TAP", "n4")),
            TELEGRAM,
            AMHARIC_DIALOG,
            CONFIRM,
        ),
        "Continue in an AlertDialog": (
            sent.plan(sent.step("TAP", "n4")),
            TELEGRAM,
            ALERT_DIALOG,
            CONFIRM,
        ),
        "an OK whose own container says nothing consequential": (
            sent.plan(sent.step("TAP", "n10")),
            TELEGRAM,
            HARMLESS_OK,
            ACCEPTED,
        ),
        "Cancel is not an answer": (
            sent.plan(sent.step("TAP", "n11")),
            TELEGRAM,
            PHOTO_DIALOG,
            ACCEPTED,
        ),
    }
    bodies = await run_cases(settings_factory, fake_openai, cases)
    for body in bodies[:3]:
        assert body["action_plan"]["steps"][0]["is_destructive"] is True
