"""What a control is called on the screen, and whether another control shows that name: the
shared-label rule of the plan rules (`rules`), with `nearest_text`, the text that says where a
tap is when its label does not (a shared label, or a tap nothing explains), for the question.

A TAP whose control shows a label (its own, else for a row the first text it holds) that
another node taking clicks also shows, folded (`core.text.fold`), is asked (`SafeStep.unread`),
whatever planner made it: which of two "Delete" buttons, or of "Alice" in the chat list and
in the header, a plan names is its guess, so the question names which, by the nearest text
around it ('Tap “Delete” beside “Photo 3”'). Not counted as another control: one inside the
tapped control or around it (a switch in its row: one tap), and a text field (its text is what
it holds, and a tap only focuses it). The screen's labels are indexed once per plan; past
`MAX_SAME_LABELS` nodes of one label the label is shared whatever they are.
"""

from __future__ import annotations

from lisan.core.text import fold
from lisan.plans.consequence import is_field
from lisan.plans.words import is_message
from lisan.screen.lines import Branch
from lisan.screen.nodes import is_checkable, label
from lisan.screen.viewtree import ViewTree

# A label more controls share than this is shared, whatever the rest are: the look-up of each
# stays bounded on a screen of a thousand "Follow" buttons.
MAX_SAME_LABELS = 16


class Labels:
    """Which controls share a label, read once per plan on first need: every labelled node of
    the screen by its folded label (`core.text.fold`)."""

    def __init__(self, tree: ViewTree) -> None:
        self._tree = tree
        self._by_label: dict[str, list[str]] | None = None

    def shared(self, receiver: Branch) -> bool:
        """Whether another node that takes clicks, neither inside `receiver` nor around it,
        shows the same label: then which of them a TAP names is the plan's guess (two "Delete"
        buttons, "Alice" in the chat list and in the header), and the step is asked."""
        name = shown_name(receiver, self._tree)
        if name is None or is_checkable(receiver.node):
            return False  # a switch's "Off" is its state: its row's label says which it is
        if self._by_label is None:
            self._by_label = {}
            for node in self._tree.values():
                shown = label(node)
                if shown is not None:
                    self._by_label.setdefault(_folded(shown), []).append(node.node_id)
        same = [
            i
            for i in self._by_label.get(_folded(name), [])
            if i != (receiver.node.node_id if receiver.node else None)
        ]
        if len(same) > MAX_SAME_LABELS:
            return True
        around = {ancestor.start for ancestor in self._tree.ancestors(receiver)}
        for node_id in same:
            other = self._tree.branch(node_id)
            clicked = self._tree.receiver(other) if other is not None else None
            if (
                clicked is None
                or is_field(clicked)  # a field's text is what it holds, and a tap only focuses
                # a list that takes clicks for its rows is no control of that label, and a
                # disabled control takes no tap
                or (clicked.node is not None and clicked.node.flags & {"scrollable", "disabled"})
                or clicked.start == receiver.start
                or clicked.start in around
            ):
                continue  # takes no click, or is the same control, or one around it
            if receiver.start not in {a.start for a in self._tree.ancestors(clicked)}:
                return True  # another control, not one inside this one
        return False


def _folded(text: str) -> str:
    return " ".join(fold(text).split())


def shown_name(branch: Branch, tree: ViewTree) -> str | None:
    """What a node is called on the screen: its label, else (a list row) the first text it
    holds."""
    if branch.node is not None and (own := label(branch.node)) is not None:
        return own
    return next((text for text in tree.texts(branch) if text.strip()), None)


def nearest_text(branch: Branch, tree: ViewTree, *, name: str | None) -> str | None:
    """The text nearest to `branch` that says something other than its name: another text it
    holds (a row's "see you at 6"), else the nearest sibling's (a checkbox's "Don't ask me
    again" above an "OK"), else its container's, one level up at a time. A text that only
    assents or declines ("Cancel" beside "OK") tells nothing of where: skipped. None when the
    screen holds no such text."""
    own = None if name is None else _folded(name)

    def telling(texts: list[str]) -> str | None:
        return next((t for t in texts if is_message(t) and _folded(t) != own), None)

    found = telling(tree.texts(branch))
    current = branch
    for parent in tree.ancestors(branch):
        if found is not None:
            return found
        siblings = tree.siblings(current)
        at = next(i for i, sibling in enumerate(siblings) if sibling.start == current.start)
        nearest_first = sorted(
            (i for i in range(len(siblings)) if i != at), key=lambda i: (abs(i - at), i > at)
        )
        found = next(
            (t for i in nearest_first if (t := telling(tree.texts(siblings[i]))) is not None),
            None,
        ) or telling(parent.texts())
        current = parent
    return found
