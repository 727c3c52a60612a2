"""A plan asks before it runs when any step is destructive, the planner asked, or the
transcriber gave no confidence; the question names its first destructive step."""

from __future__ import annotations

import pytest

from lisan.plans.safe import SafePlan, SafeStep
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


def test_the_asked_steps_are_every_consequential_or_unread_step_in_order() -> None:
    """The steps a question names are every one the service asks about, in plan order: each it
    reads as consequential and each on a screen it never read; a plan the planner alone asked
    about has none."""
    harmless = SafeStep("TAP", "n2", None, False)
    first = SafeStep("TAP", "n7", None, True)
    unread = SafeStep("TAP", "n9", None, False, unread=True)
    second = SafeStep("TAP", "n8", None, True)
    plan_ = SafePlan(APP, (harmless, first, unread, second), False)
    assert plan_.asked_steps() == (first, unread, second)
    assert SafePlan(APP, (harmless,), True).asked_steps() == ()


def test_a_validated_delete_tap_needs_confirmation() -> None:
    """A checked tap on a "ሰርዝ" (delete) button asks first."""
    safe = validated(plan(step(target_node_id="n8")))
    assert safe.requires_confirmation(transcriber_confident=True)
