"""The first broken rule is the reason reported, in the order `lisan.plans.rules` documents:
the shape, then each step in order (action type, destructive flag, target, payload), then the
count, then where the steps act. So an unknown action is reported as what it is, even in an app
never granted."""

from __future__ import annotations

import pytest

from tests.fixtures.rules import UNGRANTED, Json, plan, rejection, step, without


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
        # The count before any step is read: a plan of thousands of steps costs one len().
        (plan(*[step()] * 30, step(action_type="SWIPE")), "too_many_steps"),
        (plan(*[step()] * 30, step(target_node_id="n99")), "too_many_steps"),
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
    """The first broken rule is the reason reported, in the documented order: shape, then each
    the count, then each step in order (action type, flag, target, payload), then the apps."""
    assert rejection(raw) == reason
