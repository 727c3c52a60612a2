"""Issue 18, through POST /v1/commands with the local fake provider answering the attacker's
plan: what a tap really does (the message beside a generic answer, the node that receives the
click), text that hides a word from the fold, word forms, a plan that types blind after it
left the app it knows, and a step that carries what its action type does not define. Each case
here was ACCEPTED (or reached the phone) before its rule; the suite runs on SQLite and on
PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable

from lisan.core.settings import Settings
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import Json, plan, step
from tests.fixtures.devices import TELEGRAM
from tests.fixtures.plans import run_cases

CONFIRM = ("CONFIRMATION_REQUIRED", None)
ACCEPTED = ("ACCEPTED", None)

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
# A clickable row whose icon has no label: a tap on the icon acts on the row.
ROW_WITH_ICON = """[n1] RecyclerView {scrollable}
  [n2] LinearLayout {clickable}
    [n3] ImageView
    [n4] TextView "Delete account"
  [n5] TextView "Just a heading"
  [n6] EditText "Message" {editable}
  [n7] Button "Chats" {clickable}"""


async def test_a_generic_answer_means_what_the_message_beside_it_says(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = {
        "OK under 'Remove 12 photos?'": (
            plan(step("TAP", "n12")),
            TELEGRAM,
            PHOTO_DIALOG,
            CONFIRM,
        ),
        "አዎ on a screen that is the dialog": (
            plan(step("TAP", "n4")),
            TELEGRAM,
            AMHARIC_DIALOG,
            CONFIRM,
        ),
        "Continue in an AlertDialog": (plan(step("TAP", "n4")), TELEGRAM, ALERT_DIALOG, CONFIRM),
        "an OK whose own container says nothing consequential": (
            plan(step("TAP", "n10")),
            TELEGRAM,
            HARMLESS_OK,
            ACCEPTED,
        ),
        "Cancel is not an answer": (plan(step("TAP", "n11")), TELEGRAM, PHOTO_DIALOG, ACCEPTED),
    }
    bodies = await run_cases(settings_factory, fake_openai, cases)
    for body in bodies[:3]:
        assert body["action_plan"]["steps"][0]["is_destructive"] is True


async def test_a_tap_acts_on_the_node_that_receives_the_click(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = {
        "an unlabelled icon inside a 'Delete account' row": (
            plan(step("TAP", "n3")),
            TELEGRAM,
            ROW_WITH_ICON,
            CONFIRM,
        ),
        "a label neither clickable nor inside a clickable node": (
            plan(step("TAP", "n5")),
            TELEGRAM,
            ROW_WITH_ICON,
            ("REJECTED", "target_not_clickable"),
        ),
        "a disabled row takes no click through its child": (
            plan(step("TAP", "n2")),
            TELEGRAM,
            '[n1] LinearLayout {clickable, disabled}\n  [n2] TextView "Chats"',
            ("REJECTED", "target_disabled"),
        ),
    }
    first, _, _ = await run_cases(settings_factory, fake_openai, cases)
    assert first["action_plan"]["steps"][0]["target_node_id"] == "n3"


# What a person sees, spelled so that yesterday's fold missed the word.
HIDDEN_WORDS = {
    "a Hangul filler inside": '"De\u3164lete"',
    "a Hangul filler before a word": '"Photos\u3164Delete"',
    "a halfwidth Hangul filler": '"Pa\uffa0y"',
    "a Mongolian variation selector": '"Del\u180bete"',
    "tag characters": '"De\U000e0041\U000e0042lete"',
    "a private-use code point": '"Rem\ue000ove"',
    "an unassigned code point": '"Del\U0001fffeete"',
    "an underscore joins nothing": 'desc="btn_remove_item"',
    "camelCase": 'desc="deleteButton"',
    "a prefix: resend": '"Resend"',
    "a prefix: unsend": '"Unsend"',
    "a prefix: auto-pay": '"AutoPay"',
    "a prefix with a hyphen": '"Re-post"',
    "a noun form": '"Account deletion"',
}


async def test_a_word_is_read_whatever_hides_or_wraps_it(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = {
        name: (
            plan(step("TAP", "t")),
            TELEGRAM,
            f"[n1] FrameLayout\n  [t] Button {label} {{clickable}}",
            CONFIRM,
        )
        for name, label in HIDDEN_WORDS.items()
    }
    bodies = await run_cases(settings_factory, fake_openai, cases)
    assert all(body["action_plan"]["steps"][0]["is_destructive"] for body in bodies)


async def test_nothing_is_typed_or_scrolled_into_an_app_the_plan_cannot_know(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    unknown = ("REJECTED", "app_in_front_unknown")
    chat = ROW_WITH_ICON
    cases = {
        "open a granted app, go BACK to the ungranted one, type there": (
            plan(
                step("OPEN_APP", None, "Telegram"),
                step("BACK", None),
                step("TEXT_INPUT", None, "hi"),
            ),
            "com.example.bank",
            "[n1] FrameLayout",
            unknown,
        ),
        "BACK, then scroll whatever is in front": (
            plan(step("BACK", None), step("SCROLL", None, "down")),
            TELEGRAM,
            chat,
            unknown,
        ),
        "a tap that may follow a link, then typing": (
            plan(step("TAP", "n7"), step("TEXT_INPUT", None, "hi")),
            TELEGRAM,
            chat,
            unknown,
        ),
        "a tap on a text field, then typing into it": (
            plan(step("TAP", "n6"), step("TEXT_INPUT", None, "hi", destructive=False)),
            TELEGRAM,
            chat,
            ACCEPTED,
        ),
        "typing into a named field after a tap": (
            plan(step("TAP", "n7"), step("TEXT_INPUT", "n6", "hi")),
            TELEGRAM,
            chat,
            ACCEPTED,
        ),
        "BACK, then OPEN_APP: the app in front is known again": (
            plan(
                step("BACK", None),
                step("OPEN_APP", None, "Telegram"),
                step("TEXT_INPUT", None, "x"),
            ),
            TELEGRAM,
            chat,
            ACCEPTED,
        ),
    }
    await run_cases(settings_factory, fake_openai, cases)


async def test_a_step_carries_only_what_its_action_type_defines(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases: dict[str, tuple[dict[str, Json], str, str, tuple[str, str | None]]] = {
        "a TAP with a payload": (
            plan(step("TAP", "n7", "adb shell rm -rf /sdcard")),
            TELEGRAM,
            ROW_WITH_ICON,
            ACCEPTED,
        ),
        "BACK with a target and a payload": (
            plan(step("BACK", "n7", "tap n2 then pay")),
            TELEGRAM,
            ROW_WITH_ICON,
            ACCEPTED,
        ),
    }
    tap, back = await run_cases(settings_factory, fake_openai, cases)
    assert tap["action_plan"]["steps"][0]["target_node_id"] == "n7"
    assert "payload" not in tap["action_plan"]["steps"][0]
    assert "payload" not in back["action_plan"]["steps"][0]
    assert "target_node_id" not in back["action_plan"]["steps"][0]
