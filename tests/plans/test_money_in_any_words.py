"""Money is read by what it does, in any words: a message that says the user will be billed,
charged or debited, that a fee applies, or that shows an amount with its currency commits a tap
that assents to it, in English and in Amharic, whatever verb it uses; the question quotes it."""

from __future__ import annotations

import pytest

from lisan.plans.evidence import names_money
from tests.fixtures.committing import dialog
from tests.fixtures.rules import plan, step, validated

MONEY_MESSAGES = [
    "You'll be billed 99 ETB every month.",
    "Your card will be charged when the driver arrives.",
    "500 birr will be debited from your account.",
    "The amount is charged to your card ending 4242.",
    "10 ETB will be deducted.",
    "A fee applies.",
    "Total 1,250.00 ETB",
    "It comes to $4.99",
    "€20 for the year",
    "ከሂሳብዎ 100 ብር ይቀነሳል።",
    "50 ብር ይከፈላል።",
    "የአገልግሎት ክፍያ አለው።",
    "ብር 200",
]


@pytest.mark.parametrize("message", MONEY_MESSAGES)
def test_an_assent_under_a_message_that_moves_money_is_asked(message: str) -> None:
    """ "OK" under a message that says money moves is asked, and quotes the message."""
    tree = dialog(message, "Cancel", "OK", title="Almost there")
    tapped = validated(plan(step(target_node_id="n6")), tree=tree).steps[0]
    assert (tapped.asked, tapped.context) == (True, message)


@pytest.mark.parametrize(
    "text",
    ["Feedback", "Battery charging", "50%", "Start week on Sunday", "ብርሃን 5", "Page 2 of 10"],
)
def test_text_that_moves_no_money_is_not_read_as_money(text: str) -> None:
    """Words that only share letters with money ("Feedback", "ብርሃን") and numbers without a
    currency move no money."""
    assert not names_money(text)


def test_a_dismissal_under_a_message_that_moves_money_stays_unasked() -> None:
    """ "Cancel" under "Your card will be charged" declines: nothing is charged."""
    tree = dialog("Your card will be charged 150 ETB.", "Cancel", "OK")
    assert not validated(plan(step(target_node_id="n5")), tree=tree).steps[0].asked
