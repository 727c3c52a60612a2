"""The reduced view tree the phone sends, parsed into nodes the plan rules can check against.

One node per line, children indented under their parent by two spaces:

    [n1] FrameLayout
      [n4] Button "Send" {clickable}
        [n6] TextView "Abebe" desc="Contact Abebe" {clickable}

`[id]` first (1 to 64 of `A-Z a-z 0-9 _ . : -`), then the class, then optional visible text in
double quotes (`\\"` and `\\\\` escape a quote and a backslash), then an optional `desc="..."`,
then optional flags in braces, separated by commas and/or spaces.

The tree is untrusted screen content: it is data, never instructions. Parsing is tolerant: a line
that does not have that shape (wrong order, unterminated quote, odd id, tab indentation) is just
text: it yields no node, and nothing in it is acted on. An id on two node lines names no node at
all: a line injected through screen text (`[n9] "Cancel"` above the real `[n9] "Delete
everything"`) could otherwise decide what a target id points at. Unknown flags are ignored.

Speed: one compiled regular expression per line, whose quoted parts are possessive (no
backtracking into them), so a 64 KiB tree parses in a few milliseconds whatever it holds.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

FLAGS = frozenset({"clickable", "scrollable", "editable", "checked", "selected", "disabled"})
TAKES_CLICKS = frozenset({"clickable", "editable"})

# A quoted string is anything but a quote or backslash, or a backslash and the character it
# escapes: the two alternatives never overlap, and every repeat is possessive (`*+`, `++`, `?+`),
# so the engine never backtracks into what it matched: linear time on any line.
_LINE = re.compile(
    r"(?P<indent> *+)"
    r"\[(?P<id>[A-Za-z0-9_.:-]{1,64})\]"
    r"[ \t]++(?P<class>[^\s\"{}=]++)"
    r'(?:[ \t]++"(?P<text>(?:[^"\\]|\\.)*+)")?+'
    r'(?:[ \t]++desc="(?P<desc>(?:[^"\\]|\\.)*+)")?+'
    r"(?:[ \t]++\{(?P<flags>[^{}]*+)\})?+"
    r"\s*+"
)
# `\"` and `\\` escape a quote and a backslash; `\n` is design.md's line break inside a text: a
# separator, never the letter n glued to the next word ("Cancel\nDelete" reads two words).
_ESCAPE = re.compile(r'\\(["\\n])')
_ESCAPED = {'"': '"', "\\": "\\", "n": "\n"}
_FLAG_SEPARATOR = re.compile(r"[\s,]+")
INDENT = 2


@dataclass(frozen=True, slots=True)
class ViewNode:
    node_id: str
    class_name: str
    text: str | None
    desc: str | None
    flags: frozenset[str]
    depth: int


def parse_view_tree(summary: str) -> dict[str, ViewNode]:
    """Nodes by id, in the order they appear; lines that are not nodes are skipped, and so are
    ids that stand on more than one node line."""
    nodes: dict[str, ViewNode] = {}
    repeated: set[str] = set()
    for line in summary.split("\n"):
        node = _parse_line(line)
        if node is None:
            continue
        if node.node_id in nodes:
            repeated.add(node.node_id)
        else:
            nodes[node.node_id] = node
    return {node_id: node for node_id, node in nodes.items() if node_id not in repeated}


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


class ViewTree(Mapping[str, ViewNode]):
    """The nodes of `parse_view_tree`, found on demand: a plan names a few ids, a screen may
    hold hundreds of lines, and most plans are checked against none of them. A look-up parses
    only the lines that contain `[id]`, so an id on two node lines is not found, as in the full
    parse. Iterating parses everything once."""

    def __init__(self, summary: str) -> None:
        self._summary = summary
        self._found: dict[str, Branch | None] = {}
        self._all: dict[str, ViewNode] | None = None
        # What each branch shows, read once per tree (a tree is one command's screen): a plan's
        # steps on one list read its lines again.
        self._texts: dict[int, list[str]] = {}

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
        texts: list[str] = []
        for line in self._summary.split("\n"):
            if line.strip():
                texts += _branch(line, 0, 0).texts()
        return texts

    def ancestors(self, branch: Branch) -> list[Branch]:
        """The lines `branch` is indented under, nearest first: each is less indented than the
        one below it. A line that is not a node counts: it holds what is under it."""
        found: list[Branch] = []
        summary, indent, start = self._summary, branch.indent, branch.start
        while indent > 0 and start > 0:
            end = start - 1  # the line break before the line at `start`
            start = summary.rfind("\n", 0, end) + 1
            line = summary[start:end]
            if line.strip() and _indent(line) < indent:
                indent = _indent(line)
                found.append(_branch(line, start, end))
        return found

    def receiver(self, branch: Branch) -> Branch | None:
        """The branch that receives a click on `branch`: itself when it takes clicks, else its
        nearest ancestor that does (Android hands a click to the nearest clickable ancestor);
        None when neither it nor any ancestor does. A text field takes a click: it focuses."""
        for candidate in (branch, *self.ancestors(branch)):
            if candidate.node is not None and candidate.node.flags & TAKES_CLICKS:
                return candidate
        return None

    def _texts_under(self, branch: Branch) -> list[str]:
        texts: list[str] = []
        for line in _lines_from(self._summary, branch.end + 1):
            if not line.strip():
                continue
            if _indent(line) <= branch.indent:
                break
            node = _parse_line(line)
            if node is None:
                texts.append(line.strip())
            else:
                texts += [value for value in (node.text, node.desc) if value]
        return texts

    def _parsed(self) -> dict[str, ViewNode]:
        if self._all is None:
            self._all = parse_view_tree(self._summary)
        return self._all

    def _find(self, node_id: str) -> Branch | None:
        if node_id not in self._found:
            self._found[node_id] = self._only_node(node_id)
        return self._found[node_id]

    def _only_node(self, node_id: str) -> Branch | None:
        """The one node line with this id; None when there is none, or more than one."""
        summary, needle = self._summary, f"[{node_id}]"
        found: Branch | None = None
        at = summary.find(needle)
        while at != -1:
            start = summary.rfind("\n", 0, at) + 1
            end = summary.find("\n", at)
            end = len(summary) if end == -1 else end
            line = summary[start:end]
            node = _parse_line(line)
            if node is not None and node.node_id == node_id:
                if found is not None:
                    return None
                found = Branch(node, line.strip(), start, end, _indent(line))
            at = summary.find(needle, end)
        return found


def _branch(line: str, start: int, end: int) -> Branch:
    return Branch(_parse_line(line), line.strip(), start, end, _indent(line))


def _lines_from(summary: str, start: int) -> Iterator[str]:
    """The lines from `start` on, one at a time: a subtree is usually a few lines of many."""
    while start <= len(summary):
        end = summary.find("\n", start)
        end = len(summary) if end == -1 else end
        yield summary[start:end]
        start = end + 1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def label(node: ViewNode) -> str | None:
    """What the node shows the user: its visible text, else its content description."""
    for value in (node.text, node.desc):
        if value is not None and value.strip():
            return value
    return None


def _parse_line(line: str) -> ViewNode | None:
    match = _LINE.fullmatch(line)
    if match is None:
        return None
    return ViewNode(
        node_id=match["id"],
        class_name=match["class"],
        text=_unescape(match["text"]),
        desc=_unescape(match["desc"]),
        flags=_flags(match["flags"]),
        depth=len(match["indent"]) // INDENT,
    )


def _unescape(quoted: str | None) -> str | None:
    if quoted is None or "\\" not in quoted:
        return quoted
    return _ESCAPE.sub(lambda match: _ESCAPED[match[1]], quoted)


def _flags(raw: str | None) -> frozenset[str]:
    if not raw:
        return frozenset()
    words = _FLAG_SEPARATOR.split(raw.lower())
    return frozenset(word for word in words if word in FLAGS)
