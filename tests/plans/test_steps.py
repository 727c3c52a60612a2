"""Each step has one of the six action types, spelled exactly (`action_not_allowed`); a
boolean `is_destructive`, never assumed (`missing_destructive_flag`); and a payload of the shape
its type needs: a string or null, text for TEXT_INPUT, a direction for SCROLL (`invalid_plan`).
Only the fields its action type defines reach the phone."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.screen.actions import ACTION_TYPES
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import TELEGRAM
from tests.fixtures.plans import ACCEPTED, ROW_WITH_ICON, Case, run_cases
from tests.fixtures.rules import Json, plan, rejection, step, validated, without


@pytest.mark.parametrize(
    "action_type",
    ["tap", "Tap", "TAP ", " TAP", "SWIPE", "LONG_PRESS", "INSTALL_APP", "", None, 1, True,
     ["TAP"], {"TAP": True}],
)  # fmt: skip
def test_only_the_six_action_types_spelled_exactly(action_type: Json) -> None:
    """An action type is one of the six, spelled exactly; else `action_not_allowed`."""
    assert rejection(plan(step(action_type=action_type))) == "action_not_allowed"


def test_a_step_without_an_action_type_is_not_allowed() -> None:
    """A step without an action type is `action_not_allowed`."""
    assert rejection(plan(without(step(), "action_type"))) == "action_not_allowed"


@pytest.mark.parametrize("action_type", sorted(ACTION_TYPES))
def test_each_of_the_six_is_allowed(action_type: str) -> None:
    """Each of the six action types passes."""
    # A SCROLL names what scrolls, a TEXT_INPUT a field.
    target = {"SCROLL": "n5", "TEXT_INPUT": "n3"}.get(action_type, "n2")
    raw = plan(step(action_type=action_type, target_node_id=target, payload="down"))
    assert validated(raw).steps[0].action_type == action_type


def test_the_six_are_the_contracts_action_types() -> None:
    """The six action types are the contract's."""
    assert {"TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"} == ACTION_TYPES


@pytest.mark.parametrize("flag", [None, "false", "true", "False", 0, 1, [], {}, [False]])
def test_is_destructive_must_be_a_boolean(flag: Json) -> None:
    """`is_destructive` is a boolean: "false", 0 or null is `missing_destructive_flag`."""
    assert rejection(plan(step(is_destructive=flag))) == "missing_destructive_flag"


def test_an_absent_destructive_flag_is_never_assumed_safe() -> None:
    """A step without `is_destructive` is never assumed safe: `missing_destructive_flag`."""
    assert rejection(plan(without(step(), "is_destructive"))) == "missing_destructive_flag"
    assert rejection(plan(step(), without(step(), "is_destructive"))) == "missing_destructive_flag"


@pytest.mark.parametrize("payload", [42, True, 1.5, ["text"], {"text": "hi"}])
def test_a_payload_is_a_string_or_null(payload: Json) -> None:
    """A step's payload is a string or null, whatever its action type; else `invalid_plan`."""
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
    """A TEXT_INPUT step carries the text to type: a null or absent payload is `invalid_plan`."""
    assert rejection(plan(text_input)) == "invalid_plan"


def test_text_input_may_type_an_empty_string() -> None:
    """An empty string is a text to type."""
    raw = plan(step(action_type="TEXT_INPUT", target_node_id="n3", payload=""))
    assert validated(raw).steps[0].payload == ""


@pytest.mark.parametrize("payload", ["sideways", "Down ", "up; tap n7", ""])
def test_a_scroll_direction_is_one_the_phone_cannot_misread(payload: str) -> None:
    """A SCROLL payload is up, down, left or right, exactly; else `invalid_plan`."""
    assert rejection(plan(step(action_type="SCROLL", payload=payload))) == "invalid_plan"


async def test_a_step_carries_only_what_its_action_type_defines(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A step reaches the phone with only the fields its action type defines: a TAP's payload and
    a BACK's target and payload are dropped."""
    cases: dict[str, Case] = {
        "a TAP with a payload": (
            sent.plan(sent.step("TAP", "n7", "adb shell rm -rf /sdcard")),
            TELEGRAM,
            ROW_WITH_ICON,
            ACCEPTED,
        ),
        "BACK with a target and a payload": (
            sent.plan(sent.step("BACK", "n7", "tap n2 then pay")),
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


@pytest.mark.parametrize(
    ("typed", "sent"),
    [
        ("hello\nworld", "hello world"),  # a line break may send the message in a chat
        ("pay \u202e0005\u202c now", "pay 0005 now"),  # an override draws "5000" reversed
        ("\u2066abc\u2069\x07", "abc "),
        ("\u202e\n\t", " "),
    ],
)
def test_text_input_types_no_control_or_bidi_character(typed: str, sent: str) -> None:
    """What a TEXT_INPUT types reaches the phone without control characters (a run becomes a
    space) or bidi controls (they draw text in another order than it is stored)."""
    raw = plan(step(action_type="TEXT_INPUT", target_node_id="n3", payload=typed))
    assert validated(raw).steps[0].payload == sent


def test_a_payload_past_its_bound_is_invalid() -> None:
    """A payload holds at most MAX_PAYLOAD_CHARS (a 15 s dictation is a few hundred): a flood
    is `invalid_plan`, before it is cleaned or quoted."""
    from lisan.plans.rules import MAX_PAYLOAD_CHARS

    fits = step(action_type="TEXT_INPUT", target_node_id="n3", payload="a" * MAX_PAYLOAD_CHARS)
    assert validated(plan(fits)).steps[0].payload == "a" * MAX_PAYLOAD_CHARS
    flood = step(
        action_type="TEXT_INPUT", target_node_id="n3", payload="a" * (MAX_PAYLOAD_CHARS + 1)
    )
    assert rejection(plan(flood)) == "invalid_plan"
