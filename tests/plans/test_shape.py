"""A plan is an object of the contract's shape: a string `package_name`, one to MAX_STEPS
step objects, a boolean `needs_confirmation`, a string or null `speech_response_text`
(`invalid_plan`, `too_many_steps`). What passes becomes a SafePlan that holds only what the rules
know, and the planner's answer is left as it was."""

from __future__ import annotations

import copy

import pytest

from lisan.plans.rules import MAX_STEPS
from lisan.plans.safe import SafePlan, SafeStep
from tests.fixtures.rules import APP, Json, plan, rejection, step, validated, without


def test_a_valid_plan_becomes_a_safe_plan() -> None:
    """A plan of the contract's shape, in a granted app, becomes a SafePlan step for step."""
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
    """`needs_confirmation`, `speech_response_text`, a step's target and payload may be absent."""
    raw = {"package_name": APP, "steps": [{"action_type": "BACK", "is_destructive": False}]}
    assert validated(raw) == SafePlan(APP, (SafeStep("BACK", None, None, False),), False)


def test_unknown_keys_are_dropped_not_passed_on() -> None:
    """Keys the rules do not know are dropped, never echoed to the phone."""
    raw = plan(step(step_id="x", command="rm -rf /", extra={"a": 1}), rogue=True)
    safe = validated(raw)
    assert safe.steps == (SafeStep("TAP", "n2", None, False),)


def test_the_planners_confirmation_request_is_kept() -> None:
    """A planner's `needs_confirmation: true` is kept: the plan asks first."""
    assert validated(plan(needs_confirmation=True)).planner_asked_confirmation


def test_validation_does_not_change_the_raw_plan() -> None:
    """Checking a plan leaves the planner's answer as it was."""
    raw = plan(
        step(target_node_id="n7"), step(action_type="OPEN_APP", payload=APP, target_node_id=None)
    )
    before = copy.deepcopy(raw)
    validated(raw)
    assert raw == before


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
    """A plan is an object with a string `package_name`, a non-empty list of step objects, a
    boolean `needs_confirmation` and a string or null `speech_response_text`; else
    `invalid_plan`."""
    assert rejection(raw) == "invalid_plan"


def test_max_steps_is_twenty() -> None:
    """A plan holds at most twenty steps."""
    assert MAX_STEPS == 20


def test_twenty_steps_pass_and_twenty_one_do_not() -> None:
    """Twenty steps pass; one more is `too_many_steps`."""
    scroll = step(action_type="SCROLL", target_node_id="n5")  # steps that leave no screen
    assert len(validated(plan(*[scroll] * MAX_STEPS)).steps) == MAX_STEPS
    assert rejection(plan(*[scroll] * (MAX_STEPS + 1))) == "too_many_steps"


def test_a_long_plan_is_too_many_steps() -> None:
    """A plan of a thousand steps is `too_many_steps`, not read further."""
    assert rejection(plan(*[step()] * 1000)) == "too_many_steps"
