"""The summary's lines and their nesting, read in one pass: each line's parent, where its
subtree ends, its node (parsed when first read), and the texts no control owns. `viewtree`
reads a branch's ancestors, siblings and texts through it. A `Branch` is one line and what is
indented under it. How one line reads as a node is `nodes`'.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from lisan.screen.nodes import ViewNode, is_control, parse_line


@dataclass(frozen=True, slots=True)
class Branch:
    """A line of the tree and everything indented under it. `node` is None for a line that is
    not a node: text still on the screen, and an ancestor of what is indented under it."""

    node: ViewNode | None
    line: str  # the line, stripped
    start: int  # where its line starts in the summary
    end: int  # where its line ends: its descendants follow
    indent: int  # its line's leading spaces: a descendant's line has more

    def texts(self) -> list[str]:
        """What the line itself shows: a node's text and description, else the line."""
        if self.node is None:
            return [self.line]
        return [value for value in (self.node.text, self.node.desc) if value]


# A page's title: a node whose class or id says so (a Toolbar's, an ActionBar's). Without one,
# the first text no control owns, if it stands among the screen's first `HEADING_LINES` lines.
TITLE = re.compile(r"toolbar|action_?bar|title|heading", re.IGNORECASE)
HEADING_LINES = 8


class Lines:
    """The summary's lines with their nesting, read in one pass the first time a rule needs to
    look beyond one branch (its ancestors, what stands beside it): a plan of twenty steps on a
    64 KB screen then costs one pass, not one per step. Lines are parsed when first read."""

    __slots__ = (
        "by_id", "ends", "indents", "index", "lines", "nodes", "parents", "starts", "subtree_ends"
    )  # fmt: skip

    def __init__(self, summary: str) -> None:
        self.lines: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.indents: list[int] = []
        self.parents: list[int] = []
        self.subtree_ends: list[int] = []  # the index past the last line of each subtree
        self.nodes: dict[int, ViewNode | None] = {}
        open_lines: list[int] = []
        position = 0
        for line in summary.split("\n"):
            if line.strip():
                indent = len(line) - len(line.lstrip(" "))
                while open_lines and self.indents[open_lines[-1]] >= indent:
                    self.subtree_ends[open_lines.pop()] = len(self.lines)
                self.parents.append(open_lines[-1] if open_lines else -1)
                open_lines.append(len(self.lines))
                self.lines.append(line)
                self.starts.append(position)
                self.ends.append(position + len(line))
                self.indents.append(indent)
                self.subtree_ends.append(-1)
            position += len(line) + 1
        for still_open in open_lines:
            self.subtree_ends[still_open] = len(self.lines)
        self.index = {start: at for at, start in enumerate(self.starts)}
        self.by_id: dict[str, int | None] | None = None

    def node_lines(self) -> dict[str, int | None]:
        """Each id's node line, None for an id on more than one; every line parsed once."""
        if self.by_id is None:
            self.by_id = {}
            for at in range(len(self.lines)):
                node = self.node(at)
                if node is not None:
                    self.by_id[node.node_id] = None if node.node_id in self.by_id else at
        return self.by_id

    def node(self, at: int) -> ViewNode | None:
        if at not in self.nodes:
            self.nodes[at] = parse_line(self.lines[at])
        return self.nodes[at]

    def texts(self, at: int) -> list[str]:
        node = self.node(at)
        if node is None:
            return [self.lines[at].strip()]
        return [value for value in (node.text, node.desc) if value]

    def branch(self, at: int) -> Branch:
        return Branch(
            self.node(at), self.lines[at].strip(), self.starts[at], self.ends[at], self.indents[at]
        )

    def uncontrolled_texts(self, first: int, past: int) -> list[str]:
        """The texts of lines `first` to `past` (excluded) that no control among them owns:
        a control's subtree is skipped whole."""
        texts: list[str] = []
        at = first
        while at < past:
            if is_control(self.node(at)):
                at = self.subtree_ends[at]
                continue
            texts += self.texts(at)
            at += 1
        return texts

    def children(self, at: int) -> Iterator[int]:
        """The lines indented directly under line `at`; under -1, the top-level lines."""
        child, past = (0, len(self.lines)) if at == -1 else (at + 1, self.subtree_ends[at])
        while child < past:
            yield child
            child = self.subtree_ends[child]
