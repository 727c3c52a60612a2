"""A step is destructive when what it acts on says so, whatever the planner said: for a TAP the
clicked node and everything under it, for a TEXT_INPUT or a SCROLL its target's subtree; a
control that names no act ("OK", "አዎ", a check mark, an unlabelled icon) means what the message
around it says, and one that nothing around explains is asked. The rules only ever upgrade a
step, never the planner's `true` down."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.screen.viewtree import ViewTree
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import TELEGRAM
from tests.fixtures.plans import ACCEPTED, CHAT_SCREEN, CONFIRM, run_cases, tap_case
from tests.fixtures.rules import plan, step, validated


def test_a_destructive_child_makes_its_clickable_parent_destructive() -> None:
    """A step on a node means what its subtree says: a destructive child makes its clickable
    parent destructive."""
    tree = ViewTree(
        '[r] LinearLayout {clickable}\n  [c] TextView "Delete account"'
        '\n[o] Button "Chats" {clickable}'
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


# Around the photo dialog's message, a checkbox and answers whose own words name no act.
def _photo_dialog(answer_line: str) -> str:
    return f"""[n1] FrameLayout
  [n2] TextView "Photos"
  [n3] TextView "Albums"
  [n4] TextView "Shared"
  [n5] TextView "Search"
  [n6] TextView "Library"
  [n7] TextView "Settings"
  [n8] LinearLayout
    [n9] TextView "Remove 12 photos? This can't be undone."
    [n10] LinearLayout
      [n11] CheckBox "Don't ask again" {{clickable}}
      {answer_line}"""


# A chat list whose rows each carry an unlabelled menu icon; the last row reads destructive.
ICON_ROWS = """[n1] FrameLayout
  [n2] TextView "Chats"
  [n3] TextView "Calls"
  [n4] TextView "Status"
  [n5] TextView "Settings"
  [n6] TextView "Archived"
  [n7] TextView "Starred"
  [n15] TextView "Help"
  [n8] RecyclerView {scrollable}
    [n9] LinearLayout
      [n10] TextView "Abebe: see you at 6"
      [n11] ImageButton {clickable}
    [n12] LinearLayout
      [n13] TextView "Delete this chat for everyone"
      [n14] ImageButton {clickable}"""


# An unlabelled icon among other controls only: nothing on the screen says what it does.
LONE_ICON = """[n1] FrameLayout
  [n2] LinearLayout
    [n3] ImageButton {clickable}
    [n4] Button "Chats" {clickable}
    [n5] Button "Calls" {clickable}
    [n6] Button "Status" {clickable}
  [n7] Button "Settings" {clickable}"""


# A subscription dialog whose dismissal shares its word with the act.
CANCEL_DIALOG = """[n1] AlertDialog
  [n2] TextView "Cancel your Premium subscription? You will lose your saved items."
  [n3] LinearLayout
    [n4] Button "Cancel" {clickable}"""


async def test_a_control_that_names_no_act_means_what_its_container_says(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A control whose own text names no act (a check mark, an unlabelled icon, a phrase of
    assent on no list) takes its meaning from its dialog or its nearest container with a
    message; the question names that message. A checkbox's label beside the buttons is not the
    dialog's message; an answer in a button bar answers the message above it, whatever its
    words; a dismissal that shares its word with the act is asked."""
    cases = {
        "a check mark under the message": tap_case(
            "n12", _photo_dialog('[n12] Button "✓" {clickable}')
        ),
        "an affirmative phrase on no list": tap_case(
            "n12", _photo_dialog('[n12] Button "Sounds good!" {clickable}')
        ),
        "an OK beside a checkbox": tap_case("n12", _photo_dialog('[n12] Button "OK" {clickable}')),
        "an answer in the button bar": tap_case(
            "n12", _photo_dialog('[n12] Button "Make it so" {clickable}')
        ),
        "an unlabelled icon in a destructive row": tap_case("n14", ICON_ROWS),
        "an unlabelled icon in a harmless row": tap_case("n11", ICON_ROWS, ACCEPTED),
        "a dismissal that shares the act's word": tap_case("n4", CANCEL_DIALOG),
    }
    bodies = await run_cases(settings_factory, fake_openai, cases)
    spoken = [body.get("speech_response_text") for body in bodies]
    message = "Remove 12 photos? This can't be undone."
    assert spoken[0] == f"Tap “✓” on “{message}”? Say yes to go ahead."
    assert spoken[2] == f"Tap “OK” on “{message}”? Say yes to go ahead."
    assert spoken[4] == "Tap the button on “Delete this chat for everyone”? Say yes to go ahead."
    for body in (*bodies[:5], bodies[6]):
        assert body["action_plan"]["steps"][0]["is_destructive"] is True


async def test_a_control_nothing_on_the_screen_explains_is_asked(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """An unlabelled icon whose containers hold no message: the rules cannot read what a tap on
    it does, so it is asked, and the question says where the button is, by the text nearest to
    it; a labelled button on the same screen is read and accepted."""
    cases = {
        "the lone icon": tap_case("n3", LONE_ICON),
        "a labelled button beside it": tap_case("n7", LONE_ICON, ACCEPTED),
    }
    icon, _ = await run_cases(settings_factory, fake_openai, cases)
    assert icon["speech_response_text"] == "Tap the button beside “Chats”? Say yes to go ahead."
