"""The plan-safety rules: every reason code, the order of the checks, the destructive-word
upgrade, confirmation, and a property: whatever the planner returns, validate_plan answers a
SafePlan that keeps the rules, or PlanRejected, and nothing else."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lisan.plans.rules import (
    MAX_STEPS,
    PlanRejected,
    SafePlan,
    SafeStep,
    required_packages,
    validate_plan,
)
from lisan.plans.words import (
    DESTRUCTIVE_AMHARIC,
    DESTRUCTIVE_ENGLISH,
    is_generic_answer,
    is_message,
    reads_destructive,
)
from lisan.screen.actions import ACTION_TYPES
from lisan.screen.packages import is_package_name, names_package
from lisan.screen.viewtree import TAKES_CLICKS, ViewTree

APP = "com.example.chat"
OTHER_APP = "org.telegram.messenger"
UNGRANTED = "com.evil.app"
GRANTED = frozenset({APP, OTHER_APP})
NODES = ViewTree(
    """\
[n1] FrameLayout
  [n2] TextView "Chats" {clickable}
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Abebe" desc="Contact Abebe" {clickable}
  [n7] ImageButton desc="Delete conversation" {clickable}
  [n8] Button "ሰርዝ" {clickable}
  [n9] TextView "Settings" {clickable}
"""
)
REASONS = {
    "invalid_plan",
    "action_not_allowed",
    "missing_destructive_flag",
    "unknown_target_node",
    "app_not_granted",
    "too_many_steps",
    "target_disabled",
    "app_mismatch",
    "stale_target",
    "target_not_clickable",
    "app_in_front_unknown",
}

Json = Any


def step(**fields: Json) -> dict[str, Json]:
    """A valid, harmless TAP on "Chats", with `fields` replacing or adding keys."""
    base: dict[str, Json] = {
        "action_type": "TAP",
        "target_node_id": "n2",
        "payload": None,
        "is_destructive": False,
    }
    return base | fields


def without(mapping: dict[str, Json], key: str) -> dict[str, Json]:
    return {k: v for k, v in mapping.items() if k != key}


def plan(*steps: dict[str, Json], **fields: Json) -> dict[str, Json]:
    base: dict[str, Json] = {
        "package_name": APP,
        "steps": list(steps) or [step()],
        "needs_confirmation": False,
        "speech_response_text": None,
    }
    return base | fields


def validated(
    raw: Json, granted: frozenset[str] = GRANTED, tree: ViewTree = NODES, current: str = APP
) -> SafePlan:
    """The plan checked against a screen of `current` (APP: granted, as in most tests)."""
    return validate_plan(raw, tree, granted, current_package=current)


def rejection(
    raw: Json, granted: frozenset[str] = GRANTED, tree: ViewTree = NODES, current: str = APP
) -> str:
    with pytest.raises(PlanRejected) as caught:
        validated(raw, granted, tree, current)
    assert caught.value.reason in REASONS
    return caught.value.reason


# --- a valid plan -------------------------------------------------------------------------


def test_a_valid_plan_becomes_a_safe_plan() -> None:
    raw = plan(
        step(action_type="TEXT_INPUT", target_node_id="n3", payload="selam"),
        step(action_type="SCROLL", target_node_id="n5"),
        step(action_type="TAP", target_node_id="n6"),
        step(action_type="BACK", target_node_id=None),
        step(action_type="HOME"),
        step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
        speech_response_text="ok",
    )
    assert validated(raw) == SafePlan(
        package_name=APP,
        steps=(
            SafeStep("TEXT_INPUT", "n3", "selam", False),
            SafeStep("SCROLL", "n5", None, False),
            SafeStep("TAP", "n6", None, False),
            SafeStep("BACK", None, None, False),
            SafeStep("HOME", None, None, False),  # HOME defines no target: dropped
            SafeStep("OPEN_APP", None, "Chat", False),
        ),
        planner_asked_confirmation=False,
    )


def test_optional_keys_may_be_absent() -> None:
    raw = {"package_name": APP, "steps": [{"action_type": "BACK", "is_destructive": False}]}
    assert validated(raw) == SafePlan(APP, (SafeStep("BACK", None, None, False),), False)


def test_unknown_keys_are_dropped_not_passed_on() -> None:
    raw = plan(step(step_id="x", command="rm -rf /", extra={"a": 1}), rogue=True)
    safe = validated(raw)
    assert safe.steps == (SafeStep("TAP", "n2", None, False),)


def test_the_planners_confirmation_request_is_kept() -> None:
    assert validated(plan(needs_confirmation=True)).planner_asked_confirmation


def test_validation_does_not_change_the_raw_plan() -> None:
    raw = plan(
        step(target_node_id="n7"), step(action_type="OPEN_APP", payload=APP, target_node_id=None)
    )
    before = copy.deepcopy(raw)
    validated(raw)
    assert raw == before


# --- invalid_plan -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "raw",
    [
        None,
        [],
        "plan",
        42,
        True,
        [plan()],
        without(plan(), "package_name"),
        plan(package_name=None),
        plan(package_name=42),
        plan(package_name=[APP]),
        without(plan(), "steps"),
        plan(steps=None),
        plan(steps={"0": step()}),
        plan(steps="TAP n2"),
        plan(steps=[]),
        plan(steps=[step(), "TAP"]),
        plan(steps=[None]),
        plan(steps=[[step()]]),
        plan(needs_confirmation=None),
        plan(needs_confirmation="true"),
        plan(needs_confirmation=1),
        plan(speech_response_text=42),
        plan(speech_response_text=["hi"]),
        plan(speech_response_text={"text": "hi"}),
    ],
)
def test_a_plan_of_the_wrong_shape_is_invalid(raw: Json) -> None:
    assert rejection(raw) == "invalid_plan"


@pytest.mark.parametrize("payload", [42, True, 1.5, ["text"], {"text": "hi"}])
def test_a_payload_is_a_string_or_null(payload: Json) -> None:
    assert rejection(plan(step(payload=payload))) == "invalid_plan"
    assert rejection(plan(step(action_type="TEXT_INPUT", payload=payload))) == "invalid_plan"


@pytest.mark.parametrize(
    "text_input",
    [
        step(action_type="TEXT_INPUT", target_node_id="n3", payload=None),
        without(step(action_type="TEXT_INPUT", target_node_id="n3"), "payload"),
    ],
)
def test_text_input_needs_a_string_payload(text_input: dict[str, Json]) -> None:
    assert rejection(plan(text_input)) == "invalid_plan"


def test_text_input_may_type_an_empty_string() -> None:
    raw = plan(step(action_type="TEXT_INPUT", target_node_id="n3", payload=""))
    assert validated(raw).steps[0].payload == ""


# --- action_not_allowed -------------------------------------------------------------------


@pytest.mark.parametrize(
    "action_type",
    ["tap", "Tap", "TAP ", " TAP", "SWIPE", "LONG_PRESS", "INSTALL_APP", "", None, 1, True,
     ["TAP"], {"TAP": True}],
)  # fmt: skip
def test_only_the_six_action_types_spelled_exactly(action_type: Json) -> None:
    assert rejection(plan(step(action_type=action_type))) == "action_not_allowed"


def test_a_step_without_an_action_type_is_not_allowed() -> None:
    assert rejection(plan(without(step(), "action_type"))) == "action_not_allowed"


@pytest.mark.parametrize("action_type", sorted(ACTION_TYPES))
def test_each_of_the_six_is_allowed(action_type: str) -> None:
    raw = plan(step(action_type=action_type, payload="down"))
    assert validated(raw).steps[0].action_type == action_type


def test_the_six_are_the_contracts_action_types() -> None:
    assert {"TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"} == ACTION_TYPES


# --- missing_destructive_flag -------------------------------------------------------------


@pytest.mark.parametrize("flag", [None, "false", "true", "False", 0, 1, [], {}, [False]])
def test_is_destructive_must_be_a_boolean(flag: Json) -> None:
    assert rejection(plan(step(is_destructive=flag))) == "missing_destructive_flag"


def test_an_absent_destructive_flag_is_never_assumed_safe() -> None:
    assert rejection(plan(without(step(), "is_destructive"))) == "missing_destructive_flag"
    assert rejection(plan(step(), without(step(), "is_destructive"))) == "missing_destructive_flag"


# --- unknown_target_node ------------------------------------------------------------------


@pytest.mark.parametrize("target", ["n99", "", "N2", " n2", "n2 ", "[n2]", 2, ["n2"], {"id": "n2"}])
def test_a_target_must_be_a_node_of_the_view_tree(target: Json) -> None:
    assert rejection(plan(step(target_node_id=target))) == "unknown_target_node"


def test_no_target_node_may_be_named_on_an_empty_screen() -> None:
    with pytest.raises(PlanRejected) as caught:
        validated(plan(step(target_node_id="n2")), tree=ViewTree(""))
    assert caught.value.reason == "unknown_target_node"


def test_a_target_named_only_in_a_text_line_is_unknown() -> None:
    nodes = ViewTree('[n1] Button "OK"\nthe delete button is [n5]')
    with pytest.raises(PlanRejected) as caught:
        validated(plan(step(target_node_id="n5")), tree=nodes)
    assert caught.value.reason == "unknown_target_node"


def test_a_null_or_absent_target_is_fine() -> None:
    raw = plan(step(target_node_id=None), without(step(), "target_node_id"))
    assert [s.target_node_id for s in validated(raw).steps] == [None, None]


# --- too_many_steps -----------------------------------------------------------------------


def test_max_steps_is_twenty() -> None:
    assert MAX_STEPS == 20


def test_twenty_steps_pass_and_twenty_one_do_not() -> None:
    assert len(validated(plan(*[step()] * MAX_STEPS)).steps) == MAX_STEPS
    assert rejection(plan(*[step()] * (MAX_STEPS + 1))) == "too_many_steps"


def test_a_long_plan_is_too_many_steps() -> None:
    assert rejection(plan(*[step()] * 1000)) == "too_many_steps"


# --- app_not_granted ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("package_name", "granted"),
    [
        (UNGRANTED, GRANTED),
        (APP, frozenset()),
        ("Com.Example.Chat", GRANTED),  # grants are exact
        ("", GRANTED),
        ("not a package", GRANTED),
    ],
)
def test_the_plans_app_must_be_granted(package_name: str, granted: frozenset[str]) -> None:
    assert rejection(plan(package_name=package_name), granted) == "app_not_granted"


def test_open_app_naming_a_package_needs_that_package_granted_too() -> None:
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=UNGRANTED)
    assert rejection(plan(opens)) == "app_not_granted"
    assert rejection(plan(step(), opens)) == "app_not_granted"
    assert rejection(plan(opens), (GRANTED | {UNGRANTED}) - {APP}) == "app_not_granted"


def test_open_app_naming_a_granted_package_passes() -> None:
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=OTHER_APP)
    safe = validated(plan(opens, package_name=OTHER_APP))
    assert safe.steps[0].payload == OTHER_APP
    assert not safe.steps[0].is_destructive  # a package name names itself


def test_open_app_naming_another_package_than_the_plans_is_a_mismatch() -> None:
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=OTHER_APP)
    assert rejection(plan(opens)) == "app_mismatch"


@pytest.mark.parametrize("payload", ["Telegram", "ቴሌግራም", "my.app ", "a.", None])
def test_open_app_by_spoken_name_opens_the_plans_own_app(payload: str | None) -> None:
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=payload)
    assert validated(plan(opens)).package_name == APP
    assert rejection(plan(opens, package_name=UNGRANTED)) == "app_not_granted"


def test_a_package_name_in_another_steps_payload_needs_no_grant() -> None:
    typed = step(action_type="TEXT_INPUT", target_node_id="n3", payload=UNGRANTED)
    assert validated(plan(typed)).steps[0].payload == UNGRANTED


# --- the order of the checks --------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        # Shape comes first, even when a step breaks a later rule or a later step is malformed.
        (plan(steps=[step(action_type="SWIPE"), "not a step"]), "invalid_plan"),
        (plan(step(action_type="SWIPE"), needs_confirmation="yes"), "invalid_plan"),
        (plan(step(action_type="SWIPE"), step(payload=5)), "invalid_plan"),
        (plan(step(is_destructive=None), package_name=5), "invalid_plan"),
        # Within a step: action type, then the destructive flag, then the target, then payload.
        (plan(without(step(action_type="SWIPE"), "is_destructive")), "action_not_allowed"),
        (plan(step(is_destructive="no", target_node_id="n99")), "missing_destructive_flag"),
        (
            plan(step(action_type="TEXT_INPUT", target_node_id="n99", payload=None)),
            "unknown_target_node",
        ),
        # Steps are checked in order: the first failing step names the reason.
        (plan(step(is_destructive=None), step(action_type="SWIPE")), "missing_destructive_flag"),
        (plan(step(target_node_id="n99"), step(action_type="SWIPE")), "unknown_target_node"),
        (plan(step(action_type="SWIPE"), step(target_node_id="n99")), "action_not_allowed"),
        # Every step before the count.
        (plan(*[step()] * 30, step(action_type="SWIPE")), "action_not_allowed"),
        (plan(*[step()] * 30, step(target_node_id="n99")), "unknown_target_node"),
        # The count before grants.
        (plan(*[step()] * 30, package_name=UNGRANTED), "too_many_steps"),
        # Everything before grants: an unknown action is reported even in an ungranted app.
        (plan(step(action_type="SWIPE"), package_name=UNGRANTED), "action_not_allowed"),
        (plan(step(is_destructive=None), package_name=UNGRANTED), "missing_destructive_flag"),
        (plan(step(target_node_id="n99"), package_name=UNGRANTED), "unknown_target_node"),
        (
            plan(
                step(action_type="OPEN_APP", payload=UNGRANTED),
                step(action_type="swipe"),
            ),
            "action_not_allowed",
        ),
    ],
)
def test_the_checks_run_in_the_documented_order(raw: Json, reason: str) -> None:
    assert rejection(raw) == reason


# --- the destructive upgrade, independent of the planner ----------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Delete", "DELETE", "delete", "Delete message", "Deleted items", "Remove", "Erase",
        "Send", "Sending…", "Pay", "Pay 500 Birr", "Payments", "Confirm payment", "Buy now",
        "Purchase", "Order", "Place order", "Checkout", "Call", "Call Abebe", "Video call",
        "Transfer", "Uninstall", "Reset", "Factory reset", "Sign out", "Sign-out", "Log out",
        "Logout", "LOG OUT", "Post", "Share", "Move to trash", "Clear all", "Discard draft",
        "\uff24\uff45\uff4c\uff45\uff54\uff45", "De\u200blete", "Send\u00a0money",
    ],
)  # fmt: skip
def test_english_destructive_words_are_recognised(text: str) -> None:
    assert reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        "ሰርዝ", "ይሰርዙ", "መልእክቱን ሰርዝ", "አጥፋ", "ደምስስ", "አስወግድ", "አራግፍ", "አጽዳ",
        "ዳግም አስጀምር", "ላክ", "ይላኩ", "ላክለት", "ገንዘብ ላክ", "ክፈል", "ክፍያ ፈጽም", "ግዛ",
        "ግዢ ፈጽም", "እዘዝ", "ደውል", "ለአበበ ደውል", "አስተላልፍ", "ዘግተህ ውጣ", "ውጣ", "አጋራ",
        "ያጋሩ", "ለጥፍ",
    ],
)  # fmt: skip
def test_amharic_destructive_words_are_recognised(text: str) -> None:
    assert reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        None, "", "Chats", "Settings", "Display", "Recall", "Border", "Open", "Cancel", "Back",
        "Message", "Contact Abebe", "Undo", "Search", "ክፈት", "ቅንብሮች", "መልእክቶች", "ክፍል",
        "ተመለስ", "ፈልግ",
    ],
)  # fmt: skip
def test_ordinary_labels_are_not_destructive(text: str | None) -> None:
    assert not reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        "D\u0435lete", "DEL\u0415\u0422E", "Del\u034fete", "De\u0301lete", "D\u00e9l\u00e8te",
        "Pa\u200dy", "\uff30\uff41\uff59", "Trans\u00adfer", "R\u0435move", "\u0405end",
        "\u1220\u122d\u12dd", "\u1230\u122d\u12dd\u135f",
    ],
)  # fmt: skip
def test_look_alikes_marks_and_invisible_characters_do_not_hide_a_word(text: str) -> None:
    assert reads_destructive(text)


@pytest.mark.parametrize(
    "text",
    [
        # money
        "Withdraw", "Sell", "Cash out", "Cash-out", "Donate", "Top up", "Recharge airtime",
        "Upgrade to Premium", "Renew plan", "Check out",
        # deleting and clearing
        "Empty trash", "Wipe data",
        # sending, posting, forwarding
        "Forward", "Repost", "Upload", "Submit", "Publish",
        # installing
        "Install", "Uninstall",
        # accepting and allowing
        "Accept", "Allow", "Allow all the time", "Agree", "I agree", "Grant access", "Approve",
        "Authorize", "Confirm",
        # blocking and reporting
        "Block", "Block contact", "Report", "Report spam", "Unfollow", "Unfriend",
        # the account
        "Deactivate account", "Close account", "Close my account", "Unsubscribe", "Leave group",
        "Leave", "Sign off", "Log off", "Unlink device",
        # Amharic
        "አውጣ", "ገንዘብ አውጣ", "ሽጥ", "ለግስ", "ሙላ", "ተመዝገብ", "አትም", "አስገባ", "ጫን", "ይጫኑ",
        "ተቀበል", "ፍቀድ", "እስማማለሁ", "አረጋግጥ", "አግድ", "ሪፖርት አድርግ", "አቦዝን", "መለያ ዝጋ",
        "መለያውን ዝጋ", "አቋርጥ", "ቡድኑን ልቀቅ",
    ],
)  # fmt: skip
def test_every_consequential_verb_is_recognised(text: str) -> None:
    assert reads_destructive(text)


@pytest.mark.parametrize(
    ("spoken", "package", "tied"),
    [
        ("Telegram", "org.telegram.messenger", True),
        ("telegram", "org.telegram.messenger", True),
        ("Telegram Messenger", "org.telegram.messenger", True),
        ("ቴሌግራም", "org.telegram.messenger", True),
        ("T\u0435legram", "org.telegram.messenger", True),  # a Cyrillic e reads as an e
        ("My Bank", "com.mybank.app", True),
        ("Google Maps", "com.google.android.apps.maps", True),
        ("WhatsApp", "com.whatsapp", True),
        ("ቴሌብር", "et.ethiotelecom.telebirr", True),  # transliteration spelling, nearly
        ("org.telegram.messenger", "org.telegram.messenger", True),
        ("My Bank", "org.telegram.messenger", False),
        ("Telegram", "com.mybank.app", False),
        ("App", "com.mybank.app", False),  # a generic word names no app
        ("Android", "com.android.chrome", False),
        ("", "org.telegram.messenger", False),
        (None, "org.telegram.messenger", False),
        ("com.mybank.app", "org.telegram.messenger", False),
        ("Telegram and call +1 555 0100", "org.telegram.messenger", False),
    ],
)
def test_names_package_ties_a_spoken_name_to_the_package_it_opens(
    spoken: str | None, package: str, tied: bool
) -> None:
    assert names_package(spoken, package) is tied


@pytest.mark.parametrize(
    ("payload", "destructive"),
    [("Chat", False), ("Example Chat", False), ("My Bank", True), (None, True), ("ቻት", False)],
)
def test_open_app_by_a_name_that_is_not_the_packages_needs_confirmation(
    payload: str | None, destructive: bool
) -> None:
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=payload)
    assert validated(plan(opens)).steps[0].is_destructive is destructive


# --- where a step acts --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("raw", "current", "reason"),
    [
        (plan(step(target_node_id="n4"), package_name=OTHER_APP), UNGRANTED, "app_not_granted"),
        (plan(step(target_node_id="n4")), UNGRANTED, "app_not_granted"),
        (plan(step(target_node_id="n4")), "", "app_not_granted"),
        (plan(step(target_node_id="n4"), package_name=OTHER_APP), APP, "app_mismatch"),
        (plan(step(action_type="BACK", target_node_id=None)), UNGRANTED, "app_not_granted"),
        (plan(step(action_type="SCROLL", target_node_id=None)), UNGRANTED, "app_not_granted"),
        (
            plan(step(action_type="TEXT_INPUT", target_node_id=None, payload="hi")),
            "",
            "app_not_granted",
        ),
        (
            plan(step(action_type="BACK", target_node_id="n2"), package_name=UNGRANTED),
            UNGRANTED,
            "app_not_granted",
        ),
        (
            plan(step(action_type="OPEN_APP", target_node_id=None), step(target_node_id="n4")),
            APP,
            "stale_target",
        ),
        (
            plan(step(action_type="HOME", target_node_id=None), step(target_node_id=None)),
            APP,
            "app_not_granted",
        ),
        (
            plan(step(target_node_id="n4"), step(action_type="OPEN_APP", payload=OTHER_APP)),
            APP,
            "app_mismatch",
        ),
        (
            plan(step(action_type="HOME", target_node_id=None), package_name=""),
            "",
            "app_not_granted",
        ),
    ],
)
def test_a_step_acts_in_the_granted_app_in_front(raw: Json, current: str, reason: str) -> None:
    assert rejection(raw, current=current) == reason


@pytest.mark.parametrize(
    ("raw", "current"),
    [
        (plan(step(action_type="OPEN_APP", target_node_id=None, payload="Chat")), UNGRANTED),
        (plan(step(action_type="OPEN_APP", target_node_id=None, payload="Chat")), ""),
        (plan(step(action_type="HOME", target_node_id=None), package_name=UNGRANTED), UNGRANTED),
        (plan(step(action_type="HOME", target_node_id=None)), UNGRANTED),
        (
            plan(
                step(action_type="HOME", target_node_id=None),
                step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
                step(action_type="TEXT_INPUT", target_node_id=None, payload="hi"),
                step(action_type="BACK", target_node_id=None),
            ),
            UNGRANTED,
        ),
        (
            plan(
                step(target_node_id="n4"),
                step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
            ),
            APP,
        ),
    ],
)
def test_home_and_opening_a_granted_app_work_from_any_screen(raw: Json, current: str) -> None:
    assert validated(raw, current=current).package_name == raw["package_name"]


@pytest.mark.parametrize("payload", ["sideways", "Down ", "up; tap n7", ""])
def test_a_scroll_direction_is_one_the_phone_cannot_misread(payload: str) -> None:
    assert rejection(plan(step(action_type="SCROLL", payload=payload))) == "invalid_plan"


def test_a_disabled_node_is_no_tap_or_typing_target() -> None:
    tree = ViewTree('[b] Button "OK" {clickable, disabled}\n[f] EditText {editable disabled}')
    assert rejection(plan(step(target_node_id="b")), tree=tree) == "target_disabled"
    typing = step(action_type="TEXT_INPUT", target_node_id="f", payload="hi")
    assert rejection(plan(typing), tree=tree) == "target_disabled"
    assert validated(plan(step(action_type="SCROLL", target_node_id="b")), tree=tree)


def test_a_duplicated_id_is_an_unknown_target() -> None:
    tree = ViewTree('[n9] TextView "Cancel"\n[n1] View\n  [n9] Button "Delete everything"')
    assert rejection(plan(step(target_node_id="n9")), tree=tree) == "unknown_target_node"


def test_a_destructive_child_makes_its_clickable_parent_destructive() -> None:
    tree = ViewTree(
        '[r] LinearLayout {clickable}\n  [c] TextView "Delete account"\n[o] View {clickable}'
    )
    assert validated(plan(step(target_node_id="r")), tree=tree).steps[0].is_destructive
    assert not validated(plan(step(target_node_id="o")), tree=tree).steps[0].is_destructive


@pytest.mark.parametrize("words", [*DESTRUCTIVE_ENGLISH, *DESTRUCTIVE_AMHARIC])
def test_every_listed_word_reads_as_destructive_itself(words: str) -> None:
    """Guards the lists against an entry that folding or the pattern's lookaheads never match."""
    assert reads_destructive(words)
    assert reads_destructive(words.upper())


def test_a_known_false_alarm_errs_on_the_safe_side() -> None:
    # "ግዛት" (region) holds "ግዛ" (buy): Amharic words match anywhere, so it asks once too often.
    assert reads_destructive("ግዛት")


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
    safe = validated(plan(step(target_node_id="t", is_destructive=False)), tree=ViewTree(line))
    assert safe.steps[0].is_destructive, reason
    assert safe.first_destructive() == safe.steps[0]


def test_the_upgrade_never_downgrades_the_planner() -> None:
    safe = validated(plan(step(target_node_id="n2", is_destructive=True)))
    assert safe.steps[0].is_destructive


def test_harmless_nodes_keep_the_planners_false() -> None:
    raw = plan(step(target_node_id="n2"), step(target_node_id="n9"), step(target_node_id=None))
    assert not any(s.is_destructive for s in validated(raw).steps)


def test_only_the_target_node_is_read_not_the_payload() -> None:
    # The planner's flag decides for what a step types; the upgrade reads the screen.
    raw = plan(
        step(action_type="TEXT_INPUT", target_node_id="n3", payload="delete everything"),
        step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
    )
    assert not any(s.is_destructive for s in validated(raw).steps)


# --- confirmation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("destructive", "planner_asked", "confident", "expected"),
    [
        (False, False, True, False),
        (False, False, False, True),
        (False, True, True, True),
        (False, True, False, True),
        (True, False, True, True),
        (True, False, False, True),
        (True, True, True, True),
        (True, True, False, True),
    ],
)
def test_requires_confirmation(
    destructive: bool, planner_asked: bool, confident: bool, expected: bool
) -> None:
    steps = (SafeStep("TAP", "n2", None, False), SafeStep("BACK", None, None, destructive))
    safe = SafePlan(APP, steps, planner_asked)
    assert safe.requires_confirmation(transcriber_confident=confident) is expected


def test_first_destructive_is_the_first_such_step() -> None:
    harmless = SafeStep("TAP", "n2", None, False)
    first = SafeStep("TAP", "n7", None, True)
    second = SafeStep("TAP", "n8", None, True)
    assert SafePlan(APP, (harmless, first, second), False).first_destructive() is first
    assert SafePlan(APP, (harmless,), True).first_destructive() is None


def test_a_validated_delete_tap_needs_confirmation() -> None:
    safe = validated(plan(step(target_node_id="n8")))
    assert safe.requires_confirmation(transcriber_confident=True)


# --- package names and required_packages --------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("a.b", True),
        ("com.example.app", True),
        ("Com.Example_1.app_2", True),
        ("a." + "b" * 253, True),  # 255 characters
        ("a." + "b" * 254, False),  # 256
        ("ab", False),
        ("app", False),
        ("1a.b", False),
        ("a.1b", False),
        ("a..b", False),
        (".a.b", False),
        ("a.b.", False),
        ("a.b\n", False),
        ("a-b.c", False),
        ("ቴሌ.ግራም", False),
        (None, False),
        (42, False),
        (["a.b"], False),
    ],
)
def test_is_package_name(value: Json, expected: bool) -> None:
    assert is_package_name(value) is expected


def test_required_packages_names_the_plan_app_and_opened_packages() -> None:
    raw = plan(
        step(action_type="OPEN_APP", payload=OTHER_APP),
        step(action_type="OPEN_APP", payload="Telegram"),
        step(action_type="TEXT_INPUT", payload=UNGRANTED),
        step(action_type="open_app", payload="com.lower.case"),
    )
    assert required_packages(raw, "com.on.screen") == {APP, OTHER_APP, "com.on.screen"}
    assert required_packages(raw, "") == {APP, OTHER_APP}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, set()),
        ([], set()),
        ("com.example.chat", set()),
        ({}, set()),
        ({"package_name": ["x"]}, set()),
        ({"package_name": {"a": 1}, "steps": {"a": 1}}, set()),
        ({"package_name": "not a package"}, set()),
        ({"package_name": APP, "steps": "x"}, {APP}),
        ({"steps": [None, 1, [], {"action_type": "OPEN_APP", "payload": [OTHER_APP]}]}, set()),
        ({"steps": [{"action_type": ["OPEN_APP"], "payload": OTHER_APP}]}, set()),
        ({"steps": [{"action_type": "OPEN_APP", "payload": OTHER_APP}]}, {OTHER_APP}),
    ],
)
def test_required_packages_is_best_effort_on_garbage(raw: Json, expected: set[str]) -> None:
    assert required_packages(raw, "") == expected
    assert required_packages(raw, "not a package") == expected


# --- property: whatever the planner says --------------------------------------------------

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
# Screens the property tests draw from: the usual one, one where a clickable row holds a
# destructive label only in a child, one where an injected line duplicates a target id, one with
# a disabled button, and none at all.
SCREENS = [
    NODES,
    ViewTree(
        '[n1] FrameLayout\n  [n2] LinearLayout {clickable}\n    [n3] TextView "Delete account"\n'
        '  [n4] TextView "Chats" {clickable}'
    ),
    ViewTree('[n9] TextView "Cancel"\n[n1] View\n  [n9] Button "Delete everything" {clickable}'),
    ViewTree('[n2] Button "Chats" {clickable, disabled}\n[n3] EditText "Message" {editable}'),
    ViewTree(""),
    # A dialog whose buttons say only "OK" and "Cancel": the message says what OK does.
    ViewTree(
        "[n1] FrameLayout\n  [n2] LinearLayout\n    [n3] TextView \"Remove 12 photos? This can't "
        'be undone."\n    [n4] LinearLayout\n      [n5] Button "Cancel" {clickable}\n'
        '      [n6] Button "OK" {clickable}\n  [n7] TextView "Photos"\n  [n8] TextView "Albums"\n'
        '  [n9] TextView "Shared"\n  [n10] TextView "Settings"\n  [n11] TextView "Help"'
    ),
    # An icon with no label inside a clickable row: the click lands on the row.
    ViewTree(
        "[n1] RecyclerView {scrollable}\n  [n2] LinearLayout {clickable}\n    [n3] ImageView\n"
        '    [n4] TextView desc="btn_remove_item"\n  [n9] EditText "Search" {editable}'
    ),
]
NODE_IDS = sorted({"n1", "n2", "n3", "n4", "n6", "n9", *NODES})
SCREEN_APPS = [APP, OTHER_APP, UNGRANTED, ""]


def mostly(valid: st.SearchStrategy[Json], odds: int = 8) -> st.SearchStrategy[Json]:
    """Usually a valid value, about one time in `odds` arbitrary JSON. (The garbage band is
    mid-range: Hypothesis favours the ends of a range, and shrinks towards the low one.)"""
    band = range(5000, 5000 + 10000 // odds)
    return st.integers(0, 10000).flatmap(lambda roll: JSON if roll in band else valid)


@st.composite
def sometimes_missing(draw: st.DrawFn, fields: dict[str, st.SearchStrategy[Json]]) -> Json:
    """An object of `fields`, now and then without one of them."""
    drawn = {key: draw(strategy) for key, strategy in fields.items()}
    if draw(st.integers(0, 3000)) in range(1500, 1600):
        drawn.pop(draw(st.sampled_from(sorted(drawn))))
    return drawn


STEP = sometimes_missing(
    {
        # Arbitrary JSON there is almost always a wrong action type or an unknown node.
        "action_type": mostly(st.sampled_from(sorted(ACTION_TYPES)), 40),
        "target_node_id": mostly(st.sampled_from([*NODE_IDS, None]), 40),
        "payload": mostly(
            st.sampled_from(["hi", "down", OTHER_APP, APP, UNGRANTED, "Telegram", "Chat", None]),
            60,
        ),
        "is_destructive": mostly(st.booleans(), 60),
        "step_id": JSON,
    }
)
PLAN = sometimes_missing(
    {
        "package_name": mostly(st.sampled_from([APP, OTHER_APP, UNGRANTED, ""]), 30),
        "steps": mostly(st.lists(mostly(STEP, 60), min_size=1, max_size=MAX_STEPS + 2), 30),
        "needs_confirmation": mostly(st.booleans(), 30),
        "speech_response_text": mostly(st.none() | st.text(max_size=8), 30),
        "extra": JSON,
    }
)
GRANTS = st.sets(st.sampled_from([APP, OTHER_APP, UNGRANTED]))


@settings(max_examples=600, deadline=None)
@given(
    raw=mostly(PLAN),
    granted=GRANTS,
    tree=st.sampled_from(SCREENS),
    current=st.sampled_from(SCREEN_APPS),
)
def test_any_plan_is_a_safe_plan_that_keeps_the_rules_or_rejected(
    raw: Json, granted: set[str], tree: ViewTree, current: str
) -> None:
    before = copy.deepcopy(raw)
    safe = _outcome(raw, granted, tree, current)
    assert raw == before
    if isinstance(safe, str):
        assert safe in REASONS
        return
    assert isinstance(safe, SafePlan)
    only_home = all(s.action_type == "HOME" and s.target_node_id is None for s in safe.steps)
    assert safe.package_name in granted or (only_home and safe.package_name == current)
    assert 1 <= len(safe.steps) <= MAX_STEPS
    assert isinstance(safe.planner_asked_confirmation, bool)
    left_the_screen = app_unknown = False
    for raw_step, safe_step in zip(raw["steps"], safe.steps, strict=True):
        assert safe_step.action_type in ACTION_TYPES
        assert isinstance(safe_step.is_destructive, bool)
        assert safe_step.is_destructive or not raw_step["is_destructive"]  # never downgraded
        assert safe_step.payload is None or isinstance(safe_step.payload, str)
        if safe_step.action_type == "TEXT_INPUT":
            assert isinstance(safe_step.payload, str)
        if safe_step.action_type == "OPEN_APP" and is_package_name(safe_step.payload):
            assert safe_step.payload == safe.package_name
        if safe_step.target_node_id is not None:
            # A plan that reaches the phone targets a node only of a granted app's screen, on
            # the screen the phone sent, and only a node named once.
            assert current in granted
            assert current == safe.package_name
            assert not left_the_screen
            assert safe_step.target_node_id in tree
            node = tree[safe_step.target_node_id]
            texts = [node.text, node.desc, *tree.descendant_texts(node.node_id)]
            if any(reads_destructive(text) for text in texts):
                assert safe_step.is_destructive  # so never unconfirmed
            if safe_step.action_type in {"TAP", "TEXT_INPUT"}:
                assert "disabled" not in node.flags
            if safe_step.action_type == "TAP":
                _assert_a_tap_reads_what_it_clicks(safe_step, tree)
        elif safe_step.action_type not in {"HOME", "OPEN_APP"}:
            assert left_the_screen or current == safe.package_name
            if safe_step.action_type in {"TEXT_INPUT", "SCROLL"}:
                assert not app_unknown  # nothing typed or scrolled blind
        if safe_step.action_type not in {"TAP", "TEXT_INPUT", "SCROLL"}:
            assert safe_step.target_node_id is None  # only what the action type defines
        if safe_step.action_type not in {"TEXT_INPUT", "OPEN_APP", "SCROLL"}:
            assert safe_step.payload is None
        left_the_screen = left_the_screen or safe_step.action_type in {"HOME", "OPEN_APP"}
        if safe_step.action_type in {"HOME", "OPEN_APP"}:
            app_unknown = False
        elif safe_step.action_type == "BACK" or (
            safe_step.action_type == "TAP"
            and (  # a TAP may follow a link unless it focuses a text field
                safe_step.target_node_id is None
                or "editable" not in tree[safe_step.target_node_id].flags
            )
        ):
            app_unknown = True


def _assert_a_tap_reads_what_it_clicks(tap: SafeStep, tree: ViewTree) -> None:
    """The node that receives the click (the target or its nearest clickable ancestor) exists,
    is enabled, and when its subtree, or the container of a generic answer in it, reads
    destructive, the step asks first."""
    target = tree.branch(str(tap.target_node_id))
    assert target is not None
    clicked = next(
        (b for b in (target, *tree.ancestors(target)) if b.node and b.node.flags & TAKES_CLICKS),
        None,
    )
    assert clicked is not None
    assert clicked.node is not None
    assert "disabled" not in clicked.node.flags
    subtree = tree.texts(clicked)
    if any(reads_destructive(text) for text in subtree):
        assert tap.is_destructive
    if any(is_generic_answer(text) for text in subtree):
        containers = [b for b in tree.ancestors(clicked) if any(map(is_message, tree.texts(b)))]
        container = tree.texts(containers[0]) if containers else tree.all_texts()
        if any(reads_destructive(text) for text in container):
            assert tap.is_destructive


@settings(max_examples=300, deadline=None)
@given(raw=mostly(PLAN), granted=GRANTS, current=st.sampled_from(SCREEN_APPS))
def test_a_plan_targeting_a_duplicated_id_is_never_accepted(
    raw: Json, granted: set[str], current: str
) -> None:
    duplicated = SCREENS[2]
    outcome = _outcome(raw, granted, duplicated, current)
    if isinstance(outcome, SafePlan):
        assert all(step.target_node_id != "n9" for step in outcome.steps)


@settings(max_examples=400, deadline=None)
@given(
    raw=mostly(PLAN),
    granted=GRANTS,
    tree=st.sampled_from(SCREENS),
    current=st.sampled_from(SCREEN_APPS),
)
def test_the_grant_check_reads_only_the_required_packages(
    raw: Json, granted: set[str], tree: ViewTree, current: str
) -> None:
    """The pipeline reads grant state for required_packages(raw, current) only: enough."""
    required = required_packages(raw, current)
    assert all(is_package_name(package) for package in required)
    assert _outcome(raw, granted, tree, current) == _outcome(raw, granted & required, tree, current)


def _outcome(raw: Json, granted: set[str], tree: ViewTree, current: str) -> SafePlan | str:
    try:
        return validate_plan(raw, tree, granted, current_package=current)
    except PlanRejected as rejected:
        return rejected.reason
