"""What a step on a node will do, as the screen says it: the texts the safety rules read to decide
whether a step is consequential, whatever the planner said, and whether they could read it at all.

A tap's meaning comes from its label and from its SCREEN: what the screen commits the user to.
The rules do not ask "which words does this label have" but "what could a tap here lose", read
from four kinds of evidence (`words` and `evidence` say how each is read, in both languages):

- the page's heading: the title of a Toolbar or ActionBar, or of a node whose class or id says
  title or heading, else the first text at the top of the screen (`ViewTree.heading`);
- a dialog's message: the texts of the dialog the control sits in that no control owns (a text
  view Android reports clickable because its sentence holds a link is still the message);
- the message beside the control: the nearest container holding one;
- the screen's structure: a message field (`{editable}`, its hint saying message, reply,
  comment...) and the controls beside it form a composer.

Text commits (`evidence.commits`) when it names an act that loses money, data, messages in the
user's name, a membership or a device ("Send money", "Delete account"), or says money moves by what
it does ("you'll be billed", "a fee applies", "ይቀነሳል") or shows an amount with its currency
("1,250.00 ETB", "ብር 200"). So an act no list names is still covered without a new word: a
"Continue" under "Your card will be charged 150 ETB", a row on a page titled "Send money", an arrow
beside a message field are asked because of what the screen around them says.

For a TAP, the node that receives the click is read by what its own text names:

- a consequential act ("Delete", "Don't save", "Borrow"): asked, whatever the screen;
- no act of its own: no word at all (a check mark, an unlabelled icon) or only words of assent
  ("OK", "Continue", "Proceed anyway", "እሺ"): it COMMITS to what its screen commits to. It is
  asked when its dialog's or container's message commits, when it sits beside a message field
  (it sends what was written), or, outside a dialog, when the page's heading commits: the
  heading outranks a footnote beside the button, and the question quotes the heading. When
  nothing but the whole screen could say what it does, it is asked (`Meaning.read` false);
- a dismissal ("Cancel", "Not now", "No"): nothing, unless it does what the message asks: it
  repeats a word of a consequential message ("Cancel" under "Cancel your subscription?"), it
  ends what the message names and ending loses ("Close" under "Close your account?", "Cancel"
  under "Cancel the ride? A fee applies"), or it declines to save ("No" under "Save your
  changes?": the work is thrown away);
- another act: its own words decide, but inside a dialog, or in a button bar (two or three controls
  side by side and nothing else), it answers the dialog's or the bar's message too (asked when that
  commits, or when it ends what the message names: "Stop" under "Stop the recording?"). Beside a
  message field, a label naming only a channel ("SMS") sends. A row of a list (a clickable item that
  is no button, tab or field, and holds no checkbox or switch: such a row only selects) on a page
  whose heading commits carries out the act (a contact on "Send money"); a button that stands
  outside any list beside an amount ("Fare 150 ETB", "Request UberX") commits that amount.

What does not commit stays unasked: typing into a field, a scroll, BACK, a tab, a dismissal that
does not do the act, and a labelled control whose own label names a harmless act ("Settings",
"Help"), on any page. A price in a shop's list commits nothing by itself: only the page's
heading, a dialog's message, or the text beside an assent or beside a button outside a list do.

A message is text no control owns: a checkbox's "Don't ask again" beside a dialog's buttons is
that checkbox's label, not the dialog's message, and another button's label is that button's.

A dialog is the nearest ancestor whose class says so (AlertDialog, BottomSheet, Popup...), or,
for a control that names no act or declines, when the screen shows at most `DIALOG_MAX_TEXTS`
texts and none of its nodes is such a class, the screen as a whole (a small screen's free text
never decides what a labelled button does: "Settings" is read as settings).

`Meaning.context` is the text that made the step consequential (the heading, the dialog's
message, the amount line), so the question can quote it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lisan.plans.evidence import (
    commits,
    declines_to_save,
    ends_what_it_names,
    is_message_field_text,
    names_a_send_channel,
    names_money,
    names_search,
)
from lisan.plans.words import (
    any_reads_destructive,
    is_dismissal,
    is_message,
    names_no_act,
    words_of,
)
from lisan.screen.lines import Branch
from lisan.screen.nodes import ViewNode, is_control
from lisan.screen.viewtree import ViewTree

# A screen of at most this many texts is read whole, as a dialog is: its message can sit
# anywhere in it.
DIALOG_MAX_TEXTS = 8
# A dialog's button bar holds two or three answers; a longer row of controls is a list or a
# toolbar, whose items say what they do.
MAX_BAR_BUTTONS = 3
_DIALOG_CLASS = re.compile(r"dialog|alert|popup|modal|sheet|prompt", re.IGNORECASE)
# A list: its rows carry out what the page is for (a contact on "Send money").
_LIST_CLASS = re.compile(r"recycler|listview|gridview|list$", re.IGNORECASE)
# Items that are no row: buttons, tabs, checkable controls, fields.
_NOT_A_ROW_CLASS = re.compile(r"button|tab|check|switch|radio|toggle|chip|edit", re.IGNORECASE)
# A button in the proper sense (not an image, radio or toggle button): a page's act control.
_BUTTON_CLASS = re.compile(r"(?<!image)(?<!radio)(?<!toggle)(?<!compound)button$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Meaning:
    """What the rules read of a step: whether it is consequential, whether they could read it
    at all, and the text outside the node that gave it its meaning (the question quotes it:
    "Tap “OK” on “Remove 12 photos?”", "Tap “Abebe” on “Send money”")."""

    consequential: bool
    read: bool = True
    context: str | None = None


_HARMLESS = Meaning(consequential=False)


def what_it_does(acted_on: Branch, tree: ViewTree, *, action_type: str) -> Meaning:
    """The meaning of a step on `acted_on` (for a TAP, the node that receives the click); the
    module's docstring says how it is read."""
    own = tree.texts(acted_on)
    if any_reads_destructive(own):
        return Meaning(consequential=True)
    if action_type != "TAP" or is_field(acted_on):
        return _HARMLESS  # a field takes focus; other steps read their node
    if all(names_no_act(text) for text in own):
        return _assent(acted_on, own, tree)
    dialog = _dialog_messages(acted_on, tree, whole_small_screen=False)
    if all(names_no_act(text) or is_dismissal(text) for text in own):
        messages = _dialog_messages(acted_on, tree, whole_small_screen=True)
        return _dismissal(own, messages or _container_messages(acted_on, tree) or [])
    if dialog is None and _in_button_bar(acted_on, tree):
        dialog = _container_messages(acted_on, tree)
    if dialog is not None:
        answered = _answer(own, dialog)
        if answered.consequential:
            return answered
    return _labelled(acted_on, own, tree, in_dialog=dialog is not None)


def _assent(acted_on: Branch, own: list[str], tree: ViewTree) -> Meaning:
    """A control that names no act: it commits to what its dialog, its container, its composer
    or (outside a dialog) its page commits to."""
    dialog = _dialog_messages(acted_on, tree, whole_small_screen=True)
    messages = dialog or _container_messages(acted_on, tree)
    committed = _committing(messages or [])
    if committed is None:
        committed = _composer(acted_on, tree)
    if not dialog:
        heading = _page_heading(own, tree)
        committed = heading or committed  # the heading outranks a footnote beside the button
    if committed is not None:
        return Meaning(consequential=True, context=committed)
    if not messages:
        return Meaning(consequential=False, read=False)
    return Meaning(consequential=False, context=messages[0])


def _dismissal(own: list[str], messages: list[str]) -> Meaning:
    """A dismissal does nothing, unless it does what its message asks: it repeats a word of a
    consequential message, ends what the message names, or declines to save."""
    for text in messages:
        if (
            (_repeats_a_word(own, text) and commits(text))
            or ends_what_it_names(own, text)
            or declines_to_save(own, text)
        ):
            return Meaning(consequential=True, context=text)
    return _HARMLESS


def _answer(own: list[str], messages: list[str]) -> Meaning:
    """A labelled control answering a dialog's message: asked when the message commits, or
    when the control ends what the message names ("Stop" under "Stop the recording?")."""
    committed = _committing(messages)
    if committed is None:
        committed = next((text for text in messages if ends_what_it_names(own, text)), None)
    return _HARMLESS if committed is None else Meaning(consequential=True, context=committed)


def _labelled(acted_on: Branch, own: list[str], tree: ViewTree, *, in_dialog: bool) -> Meaning:
    """A control with a label of its own that names no consequential act: harmless, unless it
    sends a composer's message, is a row carrying out its page's act, or is the button beside
    an amount."""
    if any(names_a_send_channel(text) for text in own):
        composed = _composer(acted_on, tree, any_field=True)
        if composed is not None:
            return Meaning(consequential=True, context=composed)
    if in_dialog or acted_on.node is None:
        return _HARMLESS
    if _is_row(acted_on, tree):
        heading = _page_heading(own, tree)
        return _HARMLESS if heading is None else Meaning(consequential=True, context=heading)
    if _BUTTON_CLASS.search(acted_on.node.class_name) and not _in_list(acted_on, tree):
        amount = next(
            (text for text in _container_messages(acted_on, tree) or [] if names_money(text)),
            None,
        )
        if amount is not None:
            return Meaning(consequential=True, context=amount)
    return _HARMLESS


def _committing(messages: list[str]) -> str | None:
    return next((text for text in messages if commits(text)), None)


def _page_heading(own: list[str], tree: ViewTree) -> str | None:
    """The page's heading when it commits and is not the control's own label."""
    heading = tree.heading()
    return heading if heading is not None and heading not in own and commits(heading) else None


def _composer(acted_on: Branch, tree: ViewTree, *, any_field: bool = False) -> str | None:
    """The message field `acted_on` stands beside (in the field's parent or grandparent), as the
    text the question quotes; None when it stands beside none. `any_field`: for a control
    whose label names a channel ("SMS"), any field but a search field is the message, since
    the label says the control sends."""
    for field in tree.fields():
        if field.node is None:
            continue
        texts = [*field.texts(), field.node.node_id]
        if not (is_message_field_text(texts) or (any_field and not names_search(texts))):
            continue
        around = tree.ancestors(field, up_to=2)
        if any(tree.contains(outer, acted_on) for outer in around):
            return field.node.text or field.node.desc or "the message"
    return None


def _is_row(acted_on: Branch, tree: ViewTree) -> bool:
    """A list's item: a clickable node that is no button, tab or field, inside a list; a row
    holding a checkbox or switch selects, it carries out nothing."""
    node = acted_on.node
    return (
        node is not None
        and not _NOT_A_ROW_CLASS.search(node.class_name)
        and not tree.holds_checkable(acted_on)
        and not any(
            a.node is not None and "tab" in a.node.class_name.lower()
            for a in tree.ancestors(acted_on)
        )
        and _in_list(acted_on, tree)
    )


def _in_list(acted_on: Branch, tree: ViewTree) -> bool:
    return any(
        a.node is not None
        and ("scrollable" in a.node.flags or _LIST_CLASS.search(a.node.class_name))
        for a in tree.ancestors(acted_on)
    )


def is_field(branch: Branch | None) -> bool:
    """A text field: tapping it focuses it, it follows no link."""
    return branch is not None and branch.node is not None and "editable" in branch.node.flags


def _dialog_messages(
    acted_on: Branch, tree: ViewTree, *, whole_small_screen: bool
) -> list[str] | None:
    """The messages of the dialog `acted_on` sits in (a small screen counts as one only
    `whole_small_screen`); None when it sits in none. Read only up to the dialog: a button deep
    in a 64 KB screen costs what its ancestors hold."""
    ancestors = tree.ancestors(acted_on)
    dialog_at = next(
        (level for level, ancestor in enumerate(ancestors) if _is_dialog(ancestor.node)), None
    )
    if dialog_at is None and not (whole_small_screen and tree.holds_at_most(DIALOG_MAX_TEXTS)):
        return None
    if dialog_at is None and any(_DIALOG_CLASS.search(name) for name in tree.classes()):
        return None  # a small screen holding a dialog the node is not in: the dialog is elsewhere
    dialog = None if dialog_at is None else ancestors[dialog_at]
    return [text for text in tree.free_texts(dialog) if is_message(text)]


def _in_button_bar(acted_on: Branch, tree: ViewTree) -> bool:
    """Whether `acted_on` stands in a row of controls and nothing else (a dialog's buttons): an
    answer there answers the message above it, whatever its words."""
    siblings = tree.siblings(acted_on)
    return 2 <= len(siblings) <= MAX_BAR_BUTTONS and all(is_control(s.node) for s in siblings)


def _is_dialog(node: ViewNode | None) -> bool:
    return node is not None and _DIALOG_CLASS.search(node.class_name) is not None


def _container_messages(acted_on: Branch, tree: ViewTree) -> list[str] | None:
    """The messages of the nearest ancestor holding one, short of the screen's top line (what a
    whole screen says tells nothing of one icon in it); None when there is none."""
    for ancestor in tree.ancestors(acted_on)[:-1]:
        messages = [text for text in tree.free_texts(ancestor) if is_message(text)]
        if messages:
            return messages
    return None


def _repeats_a_word(own: list[str], message: str) -> bool:
    """Whether a dismissal's word is also the message's ("Cancel" and "Cancel subscription?")."""
    said = {word for text in own for word in words_of(text)}
    return bool(said.intersection(words_of(message)))
