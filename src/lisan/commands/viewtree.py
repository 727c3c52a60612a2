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
_ESCAPE = re.compile(r'\\(["\\])')
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
class _Found:
    node: ViewNode
    end: int  # where its line ends in the summary: its descendants follow
    indent: int  # its line's leading spaces: a descendant's line has more


class ViewTree(Mapping[str, ViewNode]):
    """The nodes of `parse_view_tree`, found on demand: a plan names a few ids, a screen may
    hold hundreds of lines, and most plans are checked against none of them. A look-up parses
    only the lines that contain `[id]`, so an id on two node lines is not found, as in the full
    parse. Iterating parses everything once."""

    def __init__(self, summary: str) -> None:
        self._summary = summary
        self._found: dict[str, _Found | None] = {}
        self._all: dict[str, ViewNode] | None = None

    def __getitem__(self, node_id: str) -> ViewNode:
        found = self._find(node_id)
        if found is None:
            raise KeyError(node_id)
        return found.node

    def __iter__(self) -> Iterator[str]:
        return iter(self._parsed())

    def __len__(self) -> int:
        return len(self._parsed())

    def descendant_texts(self, node_id: str) -> list[str]:
        """What the node's subtree shows: the text and description of every node indented under
        it, and any line there that is not a node, as it stands (a label the parse cannot read
        is still on the screen). Empty for an id that names no node."""
        found = self._find(node_id)
        if found is None:
            return []
        texts: list[str] = []
        for line in _lines_from(self._summary, found.end + 1):
            if not line.strip():
                continue
            if _indent(line) <= found.indent:
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

    def _find(self, node_id: str) -> _Found | None:
        if node_id not in self._found:
            self._found[node_id] = self._only_node(node_id)
        return self._found[node_id]

    def _only_node(self, node_id: str) -> _Found | None:
        """The one node line with this id; None when there is none, or more than one."""
        summary, needle = self._summary, f"[{node_id}]"
        found: _Found | None = None
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
                found = _Found(node, end, _indent(line))
            at = summary.find(needle, end)
        return found


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
    return _ESCAPE.sub(r"\1", quoted)


def _flags(raw: str | None) -> frozenset[str]:
    if not raw:
        return frozenset()
    words = _FLAG_SEPARATOR.split(raw.lower())
    return frozenset(word for word in words if word in FLAGS)
