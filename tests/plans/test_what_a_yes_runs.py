"""What a yes runs is what the question says. The question names what makes a step
consequential, from the screen: the act in the question's own words when it knows it (send,
pay, transfer, delete, buy), with what it acts on or whom it goes to and the amount with its
currency (typed before it, else shown by its message or its node, else the only one the screen
shows). Every text the plan types before the last asked step is named. A tap nothing explains
says where it is, by the text nearest to it, and is flagged like any asked step; a tap on a
label another control shares is asked, and says which one."""

from __future__ import annotations

import pytest

from lisan.plans.question import confirmation_question, step_question
from lisan.plans.safe import SafePlan, SafeStep
from lisan.screen.viewtree import ViewTree
from tests.fixtures.rules import APP, plan, step, validated

EN, AM = "en-US", "am-ET"

MONEY_SCREEN = ViewTree(
    """\
[root] FrameLayout
  [title] TextView "Send money"
  [amount] EditText "Amount (ETB)" {editable}
  [note] EditText "Note" {editable}
  [list] RecyclerView {scrollable}
    [r1] LinearLayout {clickable}
      [t1] TextView "Abebe \\"Boss\\" Kebede"
    [r2] LinearLayout {clickable}
      [t2] TextView "Almaz Tesfaye"
  [pay] Button "Pay now" {clickable}
"""
)


def typed(text: str, target: str = "amount") -> SafeStep:
    return SafeStep("TEXT_INPUT", target, text, False)


def consequential_tap(target: str, context: str | None = None) -> SafeStep:
    return SafeStep("TAP", target, None, True, context=context)


def ask(*steps: SafeStep, tree: ViewTree = MONEY_SCREEN, language: str = EN) -> str:
    return confirmation_question(SafePlan(APP, steps, False), tree, language)


# The act, its object and its amount


def test_a_row_that_sends_money_names_the_act_the_amount_and_whom_it_goes_to() -> None:
    """A row whose heading says it sends money is named by the act, the amount typed before it
    (in the currency the screen shows) and the row, not as a tap on a name."""
    steps = (typed("5,000"), consequential_tap("r1", context="Send money"))
    assert ask(*steps) == (
        "Type “5,000”, then send 5,000 birr to “Abebe Boss Kebede”? Say yes to go ahead."
    )
    assert ask(*steps, language=AM) == (
        "«5,000» ልጻፍ፣ ከዚያ ለ«Abebe Boss Kebede» 5,000 ብር ልላክ? ለመቀጠል «አዎ» ይበሉ።"
    )


def test_an_amount_its_message_shows_is_named_with_the_act() -> None:
    """Without a typed amount, the amount the step's message shows is named."""
    step_ = consequential_tap("r2", context="Pay 1,250.50 ETB")
    assert step_question(step_, MONEY_SCREEN, APP, EN) == (
        "Pay 1,250.50 birr to “Almaz Tesfaye”? Say yes to go ahead."
    )


@pytest.mark.parametrize(
    ("context", "english", "amharic"),
    [
        ("ገንዘብ ላክ", "Send to “Almaz Tesfaye”", "ለ«Almaz Tesfaye» ልላክ"),
        ("Transfer funds", "Transfer to “Almaz Tesfaye”", "ለ«Almaz Tesfaye» ላስተላልፍ"),
        ("Delete this contact?", "Delete “Almaz Tesfaye”", "«Almaz Tesfaye»ን ልሰርዝ"),
    ],
)
def test_the_act_is_said_in_the_questions_own_words_in_both_languages(
    context: str, english: str, amharic: str
) -> None:
    """The act the message names, in English or Amharic, is said in the question's own verb, in
    the user's language, with the row it acts on."""
    step_ = consequential_tap("r2", context=context)
    assert step_question(step_, MONEY_SCREEN, APP, EN) == f"{english}? Say yes to go ahead."
    assert step_question(step_, MONEY_SCREEN, APP, AM) == f"{amharic}? ለመቀጠል «አዎ» ይበሉ።"


def test_a_button_that_answers_the_message_is_not_what_the_act_acts_on() -> None:
    """A "Stop" button under "Delete the recording?" answers the message: the question quotes
    both, and never says it deletes "Stop"."""
    tree = ViewTree('[m] TextView "Delete the recording?"\n[b] Button "Stop" {clickable}')
    step_ = consequential_tap("b", context="Delete the recording?")
    assert step_question(step_, tree, APP, EN) == (
        "Tap “Stop” on “Delete the recording?”? Say yes to go ahead."
    )


def test_a_button_that_names_the_act_is_named_with_the_amount_the_screen_shows() -> None:
    """A "Pay now" names its act itself: the question adds the amount, the only one shown."""
    tree = ViewTree('[t] TextView "Total: $12.50"\n[b] Button "Pay now" {clickable}')
    assert step_question(consequential_tap("b"), tree, APP, EN) == (
        "Tap “Pay now” (12.50 dollars)? Say yes to go ahead."
    )


def test_a_fee_beside_a_total_names_no_amount() -> None:
    """Two different amounts on the screen: the question names neither rather than the wrong
    one."""
    tree = ViewTree(
        '[t] TextView "Total: 500 ETB"\n[f] TextView "Fee: 10 ETB"\n[b] Button "Pay" {clickable}'
    )
    assert step_question(consequential_tap("b"), tree, APP, EN) == (
        "Tap “Pay”? Say yes to go ahead."
    )


def test_a_typed_note_that_holds_a_number_is_no_amount() -> None:
    """Only a typed text that is an amount and nothing else is named as one."""
    steps = (typed("see you at 6", "note"), consequential_tap("r1", context="Send money"))
    assert ask(*steps) == (
        "Type “see you at 6”, then send to “Abebe Boss Kebede”? Say yes to go ahead."
    )


def test_a_deletion_names_no_amount() -> None:
    """A deletion is named by what it deletes, whatever amounts the screen shows."""
    tree = ViewTree(
        '[t] TextView "Total: 500 ETB"\n[r] LinearLayout {clickable}\n  [x] TextView "Photo 3"'
    )
    step_ = consequential_tap("r", context="Delete")
    assert step_question(step_, tree, APP, EN) == "Delete “Photo 3”? Say yes to go ahead."


# Every text typed


def test_every_text_typed_before_a_send_is_named_not_only_the_last() -> None:
    """A recipient, then a message, then "Send": the question names both texts."""
    tree = ViewTree(
        '[to] EditText "To" {editable}\n[m] EditText "Message" {editable}'
        '\n[s] Button "Send" {clickable}'
    )
    steps = (typed("Abebe", "to"), typed("see you at 6", "m"), SafeStep("TAP", "s", None, True))
    assert ask(*steps, tree=tree) == (
        "Type “Abebe”, then type “see you at 6”, then tap “Send”? Say yes to go ahead."
    )


def test_an_amount_and_a_note_before_a_payment_are_both_named() -> None:
    """An amount, then a note, then a send: both texts are named, in order, not only the last."""
    send = SafeStep("TAP", "pay", None, True)
    steps = (typed("5000"), typed("for lunch", "note"), send)
    assert ask(*steps) == (
        "Type “5000”, then type “for lunch”, then tap “Pay now” (5000 birr)? Say yes to go ahead."
    )


# Where an unexplained tap is

DONT_ASK_DIALOG = ViewTree(
    """\
[d] AlertDialog
  [c] CheckBox "Don't ask me again" {clickable}
  [bar] LinearLayout
    [no] Button "Cancel" {clickable}
    [ok] Button "OK" {clickable}
"""
)


def test_a_tap_nothing_explains_says_where_it_is_and_is_flagged() -> None:
    """An "OK" with no message is asked, flagged like any asked step, and named by the text
    nearest to it that says something: not its neighbour "Cancel", but the checkbox above."""
    safe = validated(plan(step(target_node_id="ok")), tree=DONT_ASK_DIALOG)
    (ok,) = safe.steps
    assert (ok.asked, ok.is_destructive) == (True, True)
    assert confirmation_question(safe, DONT_ASK_DIALOG, EN) == (
        "Tap “OK” beside “Don't ask me again”? Say yes to go ahead."
    )
    assert confirmation_question(safe, DONT_ASK_DIALOG, AM) == (
        "ከ«Don't ask me again» አጠገብ ያለውን «OK»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"
    )


# A label two controls share

TWO_DELETES = ViewTree(
    """\
[root] FrameLayout
  [header] Toolbar
    [alice_top] TextView "Alice" {clickable}
  [list] RecyclerView {scrollable}
    [row3] LinearLayout
      [p3] TextView "Photo 3"
      [d3] Button "Delete" {clickable}
    [row4] LinearLayout
      [p4] TextView "Photo 4"
      [d4] Button "Delete" {clickable}
    [chat] LinearLayout {clickable}
      [alice] TextView "Alice"
      [last] TextView "see you at 6"
  [search] EditText "Settings" {editable}
  [settings] Button "Settings" {clickable}
  [wifi] LinearLayout {clickable}
    [wifi_switch] Switch "Wi-Fi" {clickable}
  [wifi_label] TextView "Wi-Fi"
"""
)


def test_two_delete_buttons_are_told_apart_by_the_row_each_is_in() -> None:
    """Of two "Delete" buttons, the question names which: the one beside "Photo 3"."""
    safe = validated(plan(step(target_node_id="d3")), tree=TWO_DELETES)
    assert safe.steps[0].asked
    assert confirmation_question(safe, TWO_DELETES, EN) == (
        "Tap “Delete” beside “Photo 3”? Say yes to go ahead."
    )


def test_a_name_in_the_header_and_in_the_list_is_asked_and_told_apart() -> None:
    """ "Alice" in the chat list and in the header: a tap on either is asked, and the row is
    named by what else it shows."""
    safe = validated(plan(step(target_node_id="alice")), tree=TWO_DELETES)
    assert safe.steps[0].unread
    assert confirmation_question(safe, TWO_DELETES, EN) == (
        "Tap “Alice” beside “see you at 6”? Say yes to go ahead."
    )
    assert validated(plan(step(target_node_id="alice_top")), tree=TWO_DELETES).steps[0].unread


@pytest.mark.parametrize("target", ["settings", "wifi", "wifi_switch"])
def test_a_label_no_other_control_shows_stays_unasked(target: str) -> None:
    """A field's text is what it holds, and a switch inside its row is the same control: a
    harmless tap whose label no other control shows stays unasked."""
    safe = validated(plan(step(target_node_id=target)), tree=TWO_DELETES)
    assert not safe.steps[0].asked


SWITCHES_AND_A_LIST = ViewTree(
    """\
[r] LinearLayout
  [wifi] LinearLayout {clickable}
    [wifi_label] TextView "Wi-Fi"
    [wifi_switch] Switch "Off" {clickable}
  [bt] LinearLayout {clickable}
    [bt_label] TextView "Bluetooth"
    [bt_switch] Switch "Off" {clickable}
  [tabs] TabLayout
    [stats] TabView "Stats" {clickable}
  [list] ListView {clickable,scrollable}
    [heading] TextView "Stats\""""
)


@pytest.mark.parametrize("target", ["wifi_switch", "stats"])
def test_a_switch_state_or_a_text_a_list_takes_clicks_for_is_no_shared_label(
    target: str,
) -> None:
    """A switch's "Off" is its state (its row says which it is), and a list that takes clicks
    for its rows is no control of a text it holds: neither makes a label shared."""
    safe = validated(plan(step(target_node_id=target)), tree=SWITCHES_AND_A_LIST)
    assert not safe.steps[0].asked


def test_a_disabled_control_shares_no_label() -> None:
    """A disabled control takes no tap, so a plan cannot mean it: the enabled one of the same
    label is the only one."""
    tree = ViewTree(
        '[r] LinearLayout\n  [a] TextView "Chats" {clickable}\n'
        '  [b] Button "Chats" {clickable, disabled}'
    )
    assert not validated(plan(step(target_node_id="a")), tree=tree).steps[0].asked
