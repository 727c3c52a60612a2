"""Which control deletes an item the user named: the item itself when its label says delete,
remove or clear, else the one such control in the item's row of a list ("delete milk": the
"Remove" beside "Milk"). Anything less certain is no control at all, and the planner declines.
"""

from __future__ import annotations

from lisan.core.text import fold
from lisan.providers.local import vocabulary as v
from lisan.providers.local.labels import says
from lisan.screen.lines import Branch
from lisan.screen.nodes import ViewNode, label
from lisan.screen.viewtree import ViewTree

# How far above the item named its row may be: a list row wraps its texts in a layout or two.
ROW_DEPTH = 4


def row_control(tree: ViewTree, item: ViewNode) -> ViewNode | None:
    """The one control that deletes `item`: the item itself when its label says delete, remove
    or clear ("Remove account" for "delete account"), else the one such control in the item's
    row of a list. A row is the nearest container of the item (at most `ROW_DEPTH` up) that
    holds such a control, inside a scrolling list or beside a container of its class that holds
    one too (the next row); never the list itself nor a page (a toolbar's "Delete" may act on
    whatever is selected, not on the item named). None when the item's label stands twice, or
    its row holds two such controls."""
    branches = tree.branches()  # one pass: every look-up below is by index
    branch = tree.branch(item.node_id)
    shown = label(item)
    if branch is None or branch.node is None or shown is None or "disabled" in item.flags:
        return None
    if says_delete(item, tree):
        return item if tree.receiver(branch) is not None else None
    folded = fold(shown)
    for other in branches:
        if (
            other.node is not None
            and other.node.node_id != item.node_id
            and fold(label(other.node) or "") == folded
            and not (tree.contains(other, branch) or tree.contains(branch, other))
        ):
            return None  # "Milk" in two rows: which one is meant is a guess
    deleting: list[tuple[ViewNode, Branch]] = []
    holders: set[int] = set()  # the containers near a delete control: where a row may be
    for control in branches:
        node = control.node
        if node is None or "disabled" in node.flags or not says_delete(node, tree):
            continue
        receiver = tree.receiver(control)
        # What a tap on it acts on must be a control of its own, not the item's row around it
        # ("Swipe to remove" written inside a clickable row opens the row).
        if receiver is not None and not tree.contains(receiver, branch):
            deleting.append((node, receiver))
            holders.update(a.start for a in tree.ancestors(control, up_to=ROW_DEPTH + 1))
    for row in tree.ancestors(branch, up_to=ROW_DEPTH):
        if row.node is not None and "scrollable" in row.node.flags:
            return None  # the list itself: a control here is no row's
        inside = {receiver.start: node for node, receiver in deleting
                  if tree.contains(row, receiver)}  # fmt: skip
        if not inside:
            continue
        if len(inside) > 1 or not _is_row(tree, row, holders):
            return None
        return next(iter(inside.values()))
    return None


def says_delete(node: ViewNode, tree: ViewTree) -> bool:
    return says((label(node),), v.DELETE_WORDS, read=tree.reading_words)


def _is_row(tree: ViewTree, row: Branch, holders: set[int]) -> bool:
    """Whether a container is a list's row: inside a scrolling list, or beside another
    container of its class that holds a delete control too (the next row)."""
    if any(a.node is not None and "scrollable" in a.node.flags for a in tree.ancestors(row)):
        return True
    return row.node is not None and any(
        other.start != row.start
        and other.start in holders
        and other.node is not None
        and other.node.class_name == row.node.class_name
        for other in tree.siblings(row)
    )
