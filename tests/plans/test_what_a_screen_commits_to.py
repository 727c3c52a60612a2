"""A tap means what its screen commits the user to, not only what its label says: on a page
whose heading commits (money, data, messages in the user's name), an assent, an unlabelled
control and a list row that carries out the act are asked, and the question quotes the heading,
which outranks a footnote beside the button. What does not commit stays unasked: typing, a
scroll, BACK, a tab, a labelled control whose own label names a harmless act. Acts no list names
are read the same way: the control beside a message field sends it, a button beside an amount
commits it."""

from __future__ import annotations

import pytest

from lisan.screen.viewtree import ViewTree
from tests.fixtures.committing import SEND_MONEY_PAGE, SHOP_PAGE, composer, dialog
from tests.fixtures.rules import plan, step, validated


def _tap(tree: ViewTree, target: str) -> tuple[bool, str | None]:
    tapped = validated(plan(step(target_node_id=target)), tree=tree).steps[0]
    return tapped.asked, tapped.context


@pytest.mark.parametrize(
    ("target", "what"),
    [("n18", "Continue beside a footnote"), ("n11", "a contact row"), ("n14", "another row")],
)
def test_a_committing_tap_on_a_page_whose_heading_commits_is_asked_and_quotes_the_heading(
    target: str, what: str
) -> None:
    """On "Send money", "Continue" and a contact row carry out the transfer: asked, and the
    question quotes the heading, not the footnote beside the button."""
    assert _tap(SEND_MONEY_PAGE, target) == (True, "Send money"), what


@pytest.mark.parametrize(
    ("target", "what"),
    [("n5", "a Settings icon"), ("n7", "a tab"), ("n3", "navigate up"), ("n19", "Help")],
)
def test_ordinary_labelled_controls_on_a_committing_page_stay_unasked(
    target: str, what: str
) -> None:
    """A control whose own label names a harmless act means that act on any page."""
    assert _tap(SEND_MONEY_PAGE, target)[0] is False, what


def test_typing_scrolling_and_going_back_on_a_committing_page_stay_unasked() -> None:
    """Typing into a field, a scroll and BACK commit nothing."""
    safe = validated(
        plan(
            step(action_type="TEXT_INPUT", target_node_id="n9", payload="500"),
            step(action_type="SCROLL", target_node_id="n10", payload="down"),
            step(action_type="BACK", target_node_id=None),
        ),
        tree=SEND_MONEY_PAGE,
    )
    assert not safe.asked_steps()


@pytest.mark.parametrize(("target", "what"), [("n6", "a product row"), ("n9", "a favourite")])
def test_a_price_in_a_shop_list_commits_no_harmless_tap(target: str, what: str) -> None:
    """A price shown in a list is not a commitment of a tap that opens or marks a product."""
    assert _tap(SHOP_PAGE, target)[0] is False, what


@pytest.mark.parametrize(
    "send_line",
    [
        "[n7] ImageButton {clickable}",
        '[n7] ImageButton desc="SMS" {clickable}',
        '[n7] Button "➤" {clickable}',
        '[n7] Button "OK" {clickable}',
    ],
)
def test_the_control_beside_a_message_field_sends_it_whatever_it_is_called(
    send_line: str,
) -> None:
    """On a composer (a message field and the controls beside it) the control that names no
    act or names only a channel sends the message: asked, and the question names the field."""
    assert _tap(composer(send_line), "n7") == (True, "Type a message")


def test_an_amharic_composer_sends_by_its_unlabelled_button() -> None:
    """An Amharic message field ("መልእክት ይጻፉ") makes a composer too."""
    tree = composer("[n7] ImageButton {clickable}", hint="መልእክት ይጻፉ")
    assert _tap(tree, "n7") == (True, "መልእክት ይጻፉ")


def test_a_search_field_is_no_composer_and_its_tools_are_no_sender() -> None:
    """Beside a search field an unlabelled button searches; beside a message field, a tool
    that names its own act ("Attach") is that act."""
    assert _tap(composer("[n7] ImageButton {clickable}", hint="Search chats"), "n7") == (
        False,
        "Abebe Kebede",
    )
    assert _tap(composer("[n7] ImageButton {clickable}"), "n8")[0] is False


@pytest.mark.parametrize(
    "label",
    ["Borrow 500 ETB", "Sign transaction", "Restore backup", "Charge card", "Request a ride"],
)
def test_acts_no_list_named_before_read_as_acts(label: str) -> None:
    """Borrowing, signing a transaction, restoring over current data, charging a card and
    requesting a ride are asked by their own label."""
    assert _tap(ViewTree(f'[n1] Button "{label}" {{clickable}}'), "n1")[0] is True


def test_the_button_beside_an_amount_outside_a_list_commits_it() -> None:
    """A button whose own label names no known act ("Request UberX") beside a fare commits the
    fare: asked, and the question quotes the amount."""
    tree = ViewTree(
        """\
[n1] FrameLayout
  [n2] TextView "Where to?"
  [n3] LinearLayout
    [n4] TextView "UberX · Fare 150.00 ETB"
    [n5] Button "Request UberX" {clickable}"""
    )
    assert _tap(tree, "n5") == (True, "UberX · Fare 150.00 ETB")


def test_a_control_named_only_by_its_channel_sends_whatever_the_field_holds() -> None:
    """Beside a field holding the user's draft (no hint saying "message"), a button labelled
    only by a channel ("SMS") sends it: the label says so."""
    tree = composer('[n7] Button "SMS" desc="OK" {clickable}', hint="Good morning")
    assert _tap(tree, "n7") == (True, "Good morning")


@pytest.mark.parametrize(
    "message",
    [
        "Move pic3.jpg into the Recycle Bin?",
        "Your notes will be lost.",
        "This can't be undone.",
        "The files are removed permanently.",
        "ፋይሎቹ በቋሚነት ይጠፋሉ።",
    ],
)
def test_an_assent_under_a_message_that_loses_data_is_asked(message: str) -> None:
    """Data lost is read by what the message says happens to it, not only by a verb: a bin it
    goes to, a loss that cannot be undone."""
    assert _tap(dialog(message, "No", "Yes"), "n6") == (True, message)


@pytest.mark.parametrize("label", ["Empty the Recycle Bin", "Empty the trash"])
def test_emptying_a_bin_is_asked_by_its_label(label: str) -> None:
    assert _tap(ViewTree(f'[n1] TextView "{label}" {{clickable}}'), "n1")[0] is True


@pytest.mark.parametrize("label", ["Dialpad", "Dialog settings", "Show dialogs"])
def test_a_word_that_only_begins_as_an_act_is_spelled_is_no_act(label: str) -> None:
    """A dial pad shows keys and a dialog is a window: neither places a call."""
    assert _tap(ViewTree(f'[n1] ImageButton desc="{label}" {{clickable}}'), "n1")[0] is False


def test_a_dialled_call_is_still_a_call() -> None:
    """The words excused are whole words: the act's own forms are not among them."""
    assert _tap(ViewTree('[n1] Button "Dial number" {clickable}'), "n1")[0] is True


@pytest.mark.parametrize("label", ["Use 24-hour time format", "Use 24-hour format", "Date format"])
def test_a_format_setting_formats_nothing(label: str) -> None:
    """A time or date format is a setting's name, not the act of formatting storage."""
    assert _tap(ViewTree(f'[n1] TextView "{label}" {{clickable}}'), "n1")[0] is False


@pytest.mark.parametrize("label", ["Format SD card", "Format", "Reformat storage"])
def test_formatting_storage_is_still_asked(label: str) -> None:
    assert _tap(ViewTree(f'[n1] Button "{label}" {{clickable}}'), "n1")[0] is True
