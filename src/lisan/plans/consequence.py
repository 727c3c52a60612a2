"""What a step on a node will do, as the screen says it: the texts the safety rules read to
decide whether a step is consequential, whatever the planner said, and whether they could read
it at all.

A step on a node means what that node's subtree says ("Delete account" on the child of a
clickable row makes tapping the row destructive). For a TAP, the node that receives the click is
read by what its own text names:

- an act ("Delete", "Search", "Make it so"): that act; inside a dialog (see below), or in a
  button bar (two or three controls side by side and nothing else), also what the dialog or
  the bar's container says, since such buttons answer its message ("Make it so" under "Delete
  12 photos?" is asked, the safe side of a guess);
- nothing ("Cancel", "Not now"): nothing, unless the message it answers uses the same word for
  an act ("Cancel" under "Cancel your subscription?");
- no act of its own: no word at all (a check mark, an unlabelled icon) or only words of assent
  ("OK", "Sounds good", "እሺ"): what its container says: the dialog it sits in, else the nearest
  ancestor that holds a message of its own ("Remove 12 photos? This can't be undone.", or the
  "Delete account" of the row an icon sits in). When no container short of the whole screen
  holds one, the rules cannot read what the tap does: it is asked (`Meaning.read` false).

A message is text no control owns: a checkbox's "Don't ask again" beside a dialog's buttons is
that checkbox's label, not the dialog's message, and another button's label is that button's.

A dialog is the nearest ancestor whose class says so (AlertDialog, BottomSheet, Popup...), or,
for a control that names no act or declines, when the screen shows at most `DIALOG_MAX_TEXTS`
texts and none of its nodes is such a class, the screen as a whole (a small screen's free text
never decides what a labelled button does: "Settings" is read as settings). How the words
themselves are read is `words`'.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lisan.plans.words import (
    any_reads_destructive,
    is_dismissal,
    is_message,
    names_no_act,
    reads_destructive,
    words_of,
)
from lisan.screen.nodes import ViewNode
from lisan.screen.viewtree import Branch, ViewTree, is_control

# A screen of at most this many texts is read whole, as a dialog is: its message can sit
# anywhere in it.
DIALOG_MAX_TEXTS = 8
# A dialog's button bar holds two or three answers; a longer row of controls is a list or a
# toolbar, whose items say what they do.
MAX_BAR_BUTTONS = 3
_DIALOG_CLASS = re.compile(r"dialog|alert|popup|modal|sheet|prompt", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Meaning:
    """What the rules read of a step: whether it is consequential, whether they could read it
    at all, and the message outside the node that gave it its meaning (the question quotes it:
    "Tap “OK” on “Remove 12 photos?”")."""

    consequential: bool
    read: bool = True
    context: str | None = None


def what_it_does(acted_on: Branch, tree: ViewTree, *, action_type: str) -> Meaning:
    """The meaning of a step on `acted_on` (for a TAP, the node that receives the click); the
    module's docstring says how it is read."""
    own = tree.texts(acted_on)
    if any_reads_destructive(own):
        return Meaning(consequential=True)
    if action_type != "TAP" or is_field(acted_on):
        return Meaning(consequential=False)  # a field takes focus; other steps read their node
    silent = all(names_no_act(text) for text in own)
    dismissal = not silent and all(names_no_act(text) or is_dismissal(text) for text in own)
    if silent or dismissal:
        messages = _dialog_messages(acted_on, tree, whole_small_screen=True)
        messages = messages or _container_messages(acted_on, tree)
    else:
        messages = _dialog_messages(acted_on, tree, whole_small_screen=False)
        if not messages and _in_button_bar(acted_on, tree):
            messages = _container_messages(acted_on, tree)
    if silent and not messages:
        return Meaning(consequential=False, read=False)
    if not messages or (dismissal and not _repeats_a_word(own, messages)):
        return Meaning(consequential=False)
    context = next((text for text in messages if reads_destructive(text)), None)
    if context is not None:
        return Meaning(consequential=True, context=context)
    return Meaning(consequential=False, context=messages[0] if silent else None)


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


def _repeats_a_word(own: list[str], messages: list[str]) -> bool:
    """Whether a dismissal's word is also the message's ("Cancel" and "Cancel subscription?")."""
    said = {word for text in own for word in words_of(text)}
    return any(said.intersection(words_of(text)) for text in messages)
