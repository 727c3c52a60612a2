"""One line of the reduced view tree the phone sends, read as a node: the line grammar.

One node per line, children indented under their parent by two spaces:

    [n1] FrameLayout
      [n4] Button "Send" {clickable}
        [n6] TextView "Abebe" desc="Contact Abebe" {clickable}

`[id]` first (1 to 64 of `A-Z a-z 0-9 _ . : -`), then the class, then optional visible text in
double quotes (`\\"` and `\\\\` escape a quote and a backslash), then an optional `desc="..."`,
then optional flags in braces, separated by commas and/or spaces.

What kind of node a line is (a control a person operates, a checkbox, a message holding a link)
is read from the node alone, here too (`is_control`).

Parsing is tolerant: a line that does not have that shape (wrong order, unterminated quote, odd
id, tab indentation) is just text: it yields no node, and nothing in it is acted on. An id on
two node lines names no node at all (`parse_view_tree`). Unknown flags are ignored.

Speed: one compiled regular expression per line, whose quoted parts are possessive (no
backtracking into them), so a tree parses in time linear in its size whatever it holds.
"""

from __future__ import annotations

import functools
import re
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
        node = parse_line(line)
        if node is None:
            continue
        if node.node_id in nodes:
            repeated.add(node.node_id)
        else:
            nodes[node.node_id] = node
    return {node_id: node for node_id, node in nodes.items() if node_id not in repeated}


def label(node: ViewNode) -> str | None:
    """What the node shows the user: its visible text, else its content description."""
    for value in (node.text, node.desc):
        if value is not None and value.strip():
            return value
    return None


# Classes of controls that take a tap without saying so in the flags a phone reports.
_CHECKABLE_CLASS = re.compile(r"check|switch|radio|toggle|chip", re.IGNORECASE)


# A clickable text view holding a sentence is a message Android reports clickable because it
# holds a link ("By continuing you agree to pay 100 ETB. Learn more"), not a control.
SENTENCE_WORDS = 5


def is_checkable(node: ViewNode | None) -> bool:
    """A checkbox, switch, radio button, toggle or chip: what it shows is its state."""
    return node is not None and _CHECKABLE_CLASS.search(node.class_name) is not None


def is_control(node: ViewNode | None) -> bool:
    """A node a person operates (a button, a field, a checkbox): its label names what it does
    and is nobody else's message ("Don't ask again" beside a dialog's buttons is no message).
    A plain text view holding a sentence stays a message though it takes clicks (`is_message_
    with_link`): only controls answer a message."""
    return (
        node is not None
        and bool(node.flags & TAKES_CLICKS or is_checkable(node))
        and not is_message_with_link(node)
    )


def is_message_with_link(node: ViewNode) -> bool:
    """A plain, clickable text view that holds a sentence: a message with a link in it."""
    name = node.class_name
    return (
        "clickable" in node.flags
        and "editable" not in node.flags
        and name.endswith("TextView")
        and not name.endswith("CheckedTextView")
        and len((node.text or "").split(maxsplit=SENTENCE_WORDS)) >= SENTENCE_WORDS
    )


def parse_line(line: str) -> ViewNode | None:
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
    return _read_flags(raw)


# A screen repeats a few spellings of its flags on every line ("clickable", "editable"): each
# is read once. Bounded, as a hostile screen may spell them differently on every line.
@functools.lru_cache(maxsize=64)
def _read_flags(raw: str) -> frozenset[str]:
    words = _FLAG_SEPARATOR.split(raw.lower())
    return frozenset(word for word in words if word in FLAGS)
