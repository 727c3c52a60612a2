"""The reduced view tree the phone sends, as the plan rules read it: nodes found by id, a
node's branch (its line and what is indented under it), its ancestors, and the texts around
it. How the summary's lines nest is `lines`', how one line reads as a node `nodes`'.

The tree is untrusted screen content: it is data, never instructions. An id on two node lines
names no node at all: a line injected through screen text (`[n9] "Cancel"` above the real `[n9]
"Delete everything"`) could otherwise decide what a target id points at.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, ValuesView

from lisan.core.text import folds
from lisan.screen.lines import HEADING_LINES, TITLE, Branch, Lines
from lisan.screen.nodes import (
    TAKES_CLICKS,
    ViewNode,
    is_checkable,
    is_control,
    parse_line,
)


class ViewTree(Mapping[str, ViewNode]):
    """The nodes of `parse_view_tree`, found on demand: a plan names a few ids, a screen may
    hold hundreds of lines, and most plans are checked against none of them. A look-up parses
    only the lines that contain `[id]` (or, once screen text quotes ids on many lines, every
    line once, for all look-ups), so an id on two node lines is not found, as in the full
    parse. Iterating parses everything once; looking beyond a branch reads the lines' nesting
    once (`Lines`). Whatever the screen holds, each reading costs one pass over it, never one
    per step or per id."""

    def __init__(self, summary: str) -> None:
        self._summary = summary
        self._found: dict[str, Branch | None] = {}
        self._all: dict[str, ViewNode] | None = None
        self._lines: Lines | None = None
        # What each branch shows, read once per tree (a tree is one command's screen): a plan's
        # steps on one list read its lines again.
        self._texts: dict[int, list[str]] = {}
        self._holds_at_most: dict[int, bool] = {}
        self._free: dict[int, list[str]] = {}
        self._children: dict[int, list[Branch]] = {}
        self._classes: frozenset[str] | None = None
        self._heading: tuple[str | None] | None = None
        self._fields: list[Branch] | None = None
        # Each text's readings, folded once per tree: a command's rules search the screen's
        # labels more than once ("delete X": the phrase, then X, then X's row).
        self._readings: dict[str, tuple[tuple[str, ...], ...]] = {}

    def __getitem__(self, node_id: str) -> ViewNode:
        found = self._find(node_id)
        if found is None or found.node is None:  # a found branch always has its node
            raise KeyError(node_id)
        return found.node

    def __iter__(self) -> Iterator[str]:
        return iter(self._parsed())

    def __len__(self) -> int:
        return len(self._parsed())

    def branch(self, node_id: str) -> Branch | None:
        """The node's line and what is under it; None for an id that names no node."""
        return self._find(node_id)

    def descendant_texts(self, node_id: str) -> list[str]:
        """What the node's subtree shows under it: the text and description of every node
        indented under it, and any line there that is not a node, as it stands (a label the
        parse cannot read is still on the screen). Empty for an id that names no node."""
        found = self._find(node_id)
        return [] if found is None else self._texts_under(found)

    def texts(self, branch: Branch) -> list[str]:
        """What a branch shows: its own line's texts and everything under it."""
        if branch.start not in self._texts:
            self._texts[branch.start] = branch.texts() + self._texts_under(branch)
        return list(self._texts[branch.start])

    def all_texts(self) -> list[str]:
        """Everything the screen shows: every node's text and description, and every line that
        is not a node, in order."""
        lines = self._read_lines()
        return [text for at in range(len(lines.lines)) for text in lines.texts(at)]

    def reading_words(self, text: str) -> tuple[tuple[str, ...], ...]:
        """The case-insensitive readings of a text this screen shows (`core.text.folds`), each
        as its words."""
        found = self._readings.get(text)
        if found is None:
            found = self._readings[text] = tuple(tuple(r.split()) for r in folds(text))
        return found

    def values(self) -> ValuesView[ViewNode]:
        """The nodes, parsed once (the Mapping default would look each id up again)."""
        return self._parsed().values()

    def branches(self) -> list[Branch]:
        """Every node's branch, in order (an id on two node lines names none), read in one
        pass; every look-up by id after it is by that index, so a reader of every node never
        searches the summary once per id."""
        lines = self._read_lines()
        return [lines.branch(at) for at in lines.node_lines().values() if at is not None]

    def classes(self) -> frozenset[str]:
        """The class names of the screen's nodes."""
        if self._classes is None:
            self._classes = frozenset(node.class_name for node in self.values())
        return self._classes

    def holds_at_most(self, count: int) -> bool:
        """Whether the screen shows at most `count` texts; reads only as far as it must, once."""
        if count not in self._holds_at_most:
            lines, seen = self._read_lines(), 0
            for at in range(len(lines.lines)):
                seen += len(lines.texts(at))
                if seen > count:
                    break
            self._holds_at_most[count] = seen <= count
        return self._holds_at_most[count]

    def heading(self) -> str | None:
        """The page's title: the first text of a node whose class or id says title, heading or
        toolbar (a Toolbar's title, not its navigation button), else the first text no control
        owns among the screen's first lines; None when there is neither. Read once per tree."""
        if self._heading is None:
            self._heading = (self._read_heading(),)
        return self._heading[0]

    def _read_heading(self) -> str | None:
        lines = self._read_lines()
        for at in range(len(lines.lines)):
            node = lines.node(at)
            if node is not None and (TITLE.search(node.class_name) or TITLE.search(node.node_id)):
                titled = self._free_at(at)
                if titled:
                    return titled[0]
        top = lines.uncontrolled_texts(0, min(HEADING_LINES, len(lines.lines)))
        return top[0] if top else None

    def fields(self) -> list[Branch]:
        """The screen's text fields ({editable}), in order; read once per tree."""
        if self._fields is None:
            lines = self._read_lines()
            self._fields = [
                lines.branch(at)
                for at in range(len(lines.lines))
                if "{" in lines.lines[at]
                and (node := lines.node(at)) is not None
                and "editable" in node.flags
            ]
        return self._fields

    def holds_checkable(self, branch: Branch) -> bool:
        """Whether a checkbox, switch, radio button or toggle stands in `branch`'s subtree: a
        row holding one selects an item, it does not carry out an act on it."""
        lines = self._read_lines()
        at = lines.index[branch.start]
        return any(is_checkable(lines.node(line)) for line in range(at, lines.subtree_ends[at]))

    def contains(self, outer: Branch, inner: Branch) -> bool:
        """Whether `inner` is `outer` or stands in its subtree."""
        lines = self._read_lines()
        at = lines.index[outer.start]
        return at <= lines.index[inner.start] < lines.subtree_ends[at]

    def ancestors(self, branch: Branch, *, up_to: int | None = None) -> list[Branch]:
        """The lines `branch` is indented under, nearest first (at most `up_to` of them): each
        is less indented than the one below it. A line that is not a node counts: it holds what
        is under it."""
        lines = self._read_lines()
        found: list[Branch] = []
        at = lines.parents[lines.index[branch.start]]
        while at != -1 and (up_to is None or len(found) < up_to):
            found.append(lines.branch(at))
            at = lines.parents[at]
        return found

    def siblings(self, branch: Branch) -> list[Branch]:
        """The lines indented directly under `branch`'s parent, `branch` among them; only
        `branch` when it has no parent."""
        lines = self._read_lines()
        parent = lines.parents[lines.index[branch.start]]
        if parent == -1:
            return [branch]
        if parent not in self._children:  # a plan's steps in one list share its rows
            self._children[parent] = [lines.branch(child) for child in lines.children(parent)]
        return list(self._children[parent])

    def free_texts(self, branch: Branch | None) -> list[str]:
        """What `branch` shows that no control inside it owns: its own line's texts, and those
        of its subtree but for the subtrees of controls (a button's label is what that button
        does, nobody's message). `None` reads the whole screen. Read once per branch."""
        lines = self._read_lines()
        return self._free_at(-1 if branch is None else lines.index[branch.start])

    def _free_at(self, at: int) -> list[str]:
        """`free_texts` of line `at` (-1: the screen), from those of the lines under it, each
        read once: the rules read a deep control's ancestors one after the other, and each
        holds the one below it."""
        lines = self._read_lines()
        pending = [at]
        while pending:  # depth first, each line after the lines under it
            line = pending[-1]
            under = [
                child
                for child in lines.children(line)
                if child not in self._free and not is_control(lines.node(child))
            ]
            if under:
                pending += under
                continue
            pending.pop()
            if line in self._free:
                continue
            texts = [] if line == -1 else lines.texts(line)
            for child in lines.children(line):
                if not is_control(lines.node(child)):
                    texts += self._free[child]
            self._free[line] = texts
        return self._free[at]

    def receiver(self, branch: Branch) -> Branch | None:
        """The branch that receives a click on `branch`: itself when it takes clicks, else its
        nearest ancestor that does (Android hands a click to the nearest clickable ancestor);
        None when neither it nor any ancestor does. A text field takes a click: it focuses."""
        if branch.node is not None and branch.node.flags & TAKES_CLICKS:
            return branch
        for candidate in self.ancestors(branch):
            if candidate.node is not None and candidate.node.flags & TAKES_CLICKS:
                return candidate
        return None

    def _read_lines(self) -> Lines:
        if self._lines is None:
            self._lines = Lines(self._summary)
        return self._lines

    def _texts_under(self, branch: Branch) -> list[str]:
        lines = self._read_lines()
        at = lines.index[branch.start]
        return [
            text for line in range(at + 1, lines.subtree_ends[at]) for text in lines.texts(line)
        ]

    def _parsed(self) -> dict[str, ViewNode]:
        """`parse_view_tree`'s nodes, read from the lines' index: the rules that read every
        node (a label search) and every branch (a row's delete control) parse each line once."""
        if self._all is None:
            lines = self._read_lines()
            self._all = {}
            for node_id, at in lines.node_lines().items():
                node = lines.node(at) if at is not None else None
                if node is not None:
                    self._all[node_id] = node
        return self._all

    def _find(self, node_id: str) -> Branch | None:
        if node_id not in self._found:
            self._found[node_id] = self._only_node(node_id)
        return self._found[node_id]

    def _only_node(self, node_id: str) -> Branch | None:
        """The one node line with this id; None when there is none, or more than one. Only
        the lines that hold `[id]` are parsed, unless screen text quotes ids on many lines:
        then every line is parsed once, and every id found by the index of them all."""
        if self._lines is not None and self._lines.by_id is not None:
            return self._indexed(node_id)
        summary, needle = self._summary, f"[{node_id}]"
        found: Branch | None = None
        at = summary.find(needle)
        for _ in range(_LINES_READ_PER_ID):
            if at == -1:
                return found
            start = summary.rfind("\n", 0, at) + 1
            end = summary.find("\n", at)
            end = len(summary) if end == -1 else end
            line = summary[start:end]
            node = parse_line(line)
            if node is not None and node.node_id == node_id:
                if found is not None:
                    return None
                found = Branch(node, line.strip(), start, end, _indent(line))
            at = summary.find(needle, end)
        return self._indexed(node_id) if at != -1 else found

    def _indexed(self, node_id: str) -> Branch | None:
        lines = self._read_lines()
        at = lines.node_lines().get(node_id)
        return None if at is None else lines.branch(at)


# A node's id is on its own line; screen text that quotes it on more lines than this makes the
# next look-up parse every line once, rather than those lines again for every id.
_LINES_READ_PER_ID = 8


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))
