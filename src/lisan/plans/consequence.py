"""What a step on a node will do, as the screen says it: the texts the safety rules read to
decide whether a step is destructive, whatever the planner said.

A step on a node means what that node's subtree says ("Delete account" on the child of a
clickable row makes tapping the row destructive). A node that says only a generic answer ("OK",
"Yes", "Continue", "እሺ", "አዎ") means what the question it answers says: the subtree of the
nearest ancestor holding a message of its own ("Remove 12 photos? This can't be undone."), and
the whole screen when the screen holds a dialog or at most `DIALOG_MAX_TEXTS` texts, or when no
ancestor holds a message. How the words themselves are read is `words`'.
"""

from __future__ import annotations

import re

from lisan.plans.words import is_generic_answer, is_message
from lisan.screen.viewtree import Branch, ViewNode, ViewTree

# A screen of at most this many texts, or one that holds a dialog, is read whole for a generic
# answer's meaning: a dialog's message can sit anywhere in it.
DIALOG_MAX_TEXTS = 8
_DIALOG_CLASS = re.compile(r"dialog|alert|popup|modal|sheet|prompt", re.IGNORECASE)


def what_it_says(acted_on: Branch, tree: ViewTree) -> list[str]:
    """The texts that say what a step on `acted_on` does: everything in its subtree, and, when
    that holds a generic answer, what the answer answers (see the module's docstring)."""
    texts = tree.texts(acted_on)
    if not any(is_generic_answer(text) for text in texts):
        return texts
    screen = tree.all_texts()
    if len(screen) <= DIALOG_MAX_TEXTS or any(_is_dialog(node) for node in tree.values()):
        return screen
    container = next(
        (b for b in tree.ancestors(acted_on) if any(is_message(t) for t in tree.texts(b))), None
    )
    return screen if container is None else tree.texts(container)


def is_field(branch: Branch | None) -> bool:
    """A text field: tapping it focuses it, it follows no link."""
    return branch is not None and branch.node is not None and "editable" in branch.node.flags


def _is_dialog(node: ViewNode) -> bool:
    return _DIALOG_CLASS.search(node.class_name) is not None
