"""A dialog's message stays its message even when Android reports it clickable because it holds
a link: only controls (buttons, checkboxes, fields) answer it, and an assent under it means what
it says."""

from __future__ import annotations

from lisan.screen.nodes import is_control
from lisan.screen.viewtree import ViewTree
from tests.fixtures.rules import plan, step, validated

LINKED_MESSAGE = "By continuing you agree to pay 100 ETB. Learn more"
DIALOG = ViewTree(
    f"""\
[n1] FrameLayout
  [n2] AlertDialog
    [n3] TextView "Almost there"
    [n4] TextView "{LINKED_MESSAGE}" {{clickable}}
    [n5] LinearLayout
      [n6] Button "Not now" {{clickable}}
      [n7] Button "Continue" {{clickable}}
  [n8] TextView "Home\""""
)


def test_an_assent_under_a_clickable_message_means_what_the_message_says() -> None:
    """ "Continue" under a clickable message that commits money is asked and quotes it."""
    tapped = validated(plan(step(target_node_id="n7")), tree=DIALOG).steps[0]
    assert (tapped.asked, tapped.context) == (True, LINKED_MESSAGE)


def test_a_clickable_sentence_is_a_message_and_a_clickable_label_a_control() -> None:
    """A clickable text view holding a sentence is no control; a short clickable label is."""
    assert not is_control(DIALOG["n4"])
    assert is_control(DIALOG["n6"])
    assert is_control(ViewTree('[n1] TextView "Abebe Kebede" {clickable}')["n1"])
