"""A dismissal can be the act: a control that ends what its message asks about, when ending it
loses something ("Stop" under "Stop the recording?", "Close" under "Close your account?",
"Cancel" under "Cancel the ride? A fee applies"), and declining to save ("Don't save",
"Discard", "Exit without saving", "No" under "Save your changes?") are asked. A dismissal that
does not do the act ("Keep recording", "Cancel" under "Discard this draft?") stays unasked."""

from __future__ import annotations

import pytest

from tests.fixtures.committing import dialog
from tests.fixtures.rules import plan, step, validated


def _answer(message: str, answers: tuple[str, ...], tapped: int) -> tuple[bool, str | None]:
    safe = validated(plan(step(target_node_id=f"n{5 + tapped}")), tree=dialog(message, *answers))
    return safe.steps[0].asked, safe.steps[0].context


@pytest.mark.parametrize(
    ("message", "answers", "tapped"),
    [
        ("Stop the recording?", ("Keep recording", "Stop"), 1),
        ("Close your account?", ("Not now", "Close"), 1),
        ("Cancel the ride? A fee applies.", ("Cancel", "Keep ride"), 0),
        ("Save your changes?", ("No", "Yes"), 0),
        ("ቀረጻውን ያቁሙ?", ("ቀጥል", "አቁም"), 1),
        ("መለያዎን ይዝጉ?", ("ተወው", "ዝጋ"), 1),
        ("ለውጦቹን ላስቀምጥ?", ("አይ", "አዎ"), 0),
    ],
)
def test_a_dismissal_that_does_what_the_message_asks_is_asked(
    message: str, answers: tuple[str, ...], tapped: int
) -> None:
    """The answer that ends what the message names, or declines to save, is asked and quotes
    the message."""
    assert _answer(message, answers, tapped) == (True, message)


@pytest.mark.parametrize(
    "label", ["Don't save", "Discard", "Exit without saving", "Leave without saving"]
)
def test_declining_to_save_throws_work_away(label: str) -> None:
    """A label that declines to save is asked wherever it stands."""
    assert _answer("You have unsaved changes.", ("Cancel", label), 1)[0] is True


@pytest.mark.parametrize(
    ("message", "answers", "tapped"),
    [
        ("Stop the recording?", ("Keep recording", "Stop"), 0),
        ("Discard this draft?", ("Cancel", "Discard"), 0),
        ("Close this tab?", ("Close", "Keep"), 0),
        ("Save your changes?", ("Cancel", "Save"), 0),
        ("Cancel the ride? A fee applies.", ("No", "Yes"), 0),
    ],
)
def test_a_dismissal_that_keeps_things_as_they_are_stays_unasked(
    message: str, answers: tuple[str, ...], tapped: int
) -> None:
    """Keeping the recording, cancelling a discard, closing a tab and keeping the ride lose
    nothing."""
    assert _answer(message, answers, tapped)[0] is False
