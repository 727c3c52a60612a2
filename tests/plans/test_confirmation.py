"""A plan asks before it runs when any step is destructive, the planner asked, or the
transcriber gave no confidence; the question names its first destructive step."""

from __future__ import annotations

import pytest

from lisan.plans.rules import SafePlan, SafeStep
from tests.fixtures.rules import APP, plan, step, validated


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
    """A plan asks first when a step is destructive, the planner asked, or the transcriber gave
    no confidence; only when none holds does it run at once."""
    steps = (SafeStep("TAP", "n2", None, False), SafeStep("BACK", None, None, destructive))
    safe = SafePlan(APP, steps, planner_asked)
    assert safe.requires_confirmation(transcriber_confident=confident) is expected


def test_first_destructive_is_the_first_such_step() -> None:
    """The step a question names is the plan's first destructive one."""
    harmless = SafeStep("TAP", "n2", None, False)
    first = SafeStep("TAP", "n7", None, True)
    second = SafeStep("TAP", "n8", None, True)
    assert SafePlan(APP, (harmless, first, second), False).first_destructive() is first
    assert SafePlan(APP, (harmless,), True).first_destructive() is None


def test_a_validated_delete_tap_needs_confirmation() -> None:
    """A checked tap on a "ሰርዝ" (delete) button asks first."""
    safe = validated(plan(step(target_node_id="n8")))
    assert safe.requires_confirmation(transcriber_confident=True)
