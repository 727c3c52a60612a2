"""The screen as the remote planner reads it: a flat listing of what one can act on.

The phone's reduced view tree nests layout inside layout; a small model reads every line of it
at a few dozen tokens a second, and picks a layout node or a text inside a row as often as the
row. The listing keeps, one line each and in the tree's order:

- every node that takes input (clickable, editable, scrollable, or a checkbox, switch, ...), in
  the tree's own line format; one that shows no text of its own carries the texts inside it
  (a row's name and subtitle), so the model can name the row by what the user sees;
- every text that no such node holds (a title, a message), as context.

Layout that shows nothing, and the texts a control holds, are left out. The ids are the tree's
own, so a plan names the same nodes the rules then check against the whole tree. Read in one
pass over the lines, whatever the screen holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lisan.screen.nodes import TAKES_CLICKS, ViewNode, is_checkable, parse_line

# A row's texts beyond these say nothing a model needs to pick it, and cost tokens.
FOLDED_TEXTS = 3
FOLDED_CHARACTERS = 120
_SEPARATOR = " · "


@dataclass(slots=True)
class _Entry:
    node: ViewNode | None
    line: str  # a line that is no node: text on the screen, as it stands
    folded: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Listing:
    lines: list[str]
    # By action type, the listed ids a step of that type may name, in order: a TAP what takes a
    # tap (a text field too: it focuses), a TEXT_INPUT a text field, a SCROLL what scrolls.
    targets: dict[str, list[str]]


def screen_listing(view_tree: str) -> Listing:
    """The listing of `view_tree` (see the module's docstring)."""
    entries: list[_Entry] = []
    owners: list[tuple[int, _Entry]] = []  # (indent, entry) of the controls above this line
    for raw in view_tree.split("\n"):
        text = raw.strip()
        if not text:
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        while owners and owners[-1][0] >= indent:
            owners.pop()
        node = parse_line(raw)
        if node is not None and _takes_input(node):
            entry = _Entry(node, text)
            entries.append(entry)
            if node.flags & TAKES_CLICKS:
                owners.append((indent, entry))
            continue
        shown = [value for value in (node.text, node.desc) if value] if node else [text]
        if not shown:
            continue
        if owners:
            _fold(owners[-1][1], shown)
        else:
            entries.append(_Entry(node, text))
    lines = [_render(entry) for entry in entries]
    targets: dict[str, list[str]] = {"TAP": [], "TEXT_INPUT": [], "SCROLL": []}
    for node in (entry.node for entry in entries if entry.node is not None):
        if node.flags & TAKES_CLICKS or is_checkable(node):
            targets["TAP"].append(node.node_id)
        if "editable" in node.flags:
            targets["TEXT_INPUT"].append(node.node_id)
        if "scrollable" in node.flags:
            targets["SCROLL"].append(node.node_id)
    return Listing(lines, targets)


def _takes_input(node: ViewNode) -> bool:
    return bool(node.flags & TAKES_CLICKS or "scrollable" in node.flags or is_checkable(node))


def _fold(owner: _Entry, shown: list[str]) -> None:
    room = FOLDED_TEXTS - len(owner.folded)
    owner.folded += [value[:FOLDED_CHARACTERS] for value in shown[:room]]


def _render(entry: _Entry) -> str:
    node = entry.node
    if node is None:
        return entry.line
    text = node.text or _SEPARATOR.join(entry.folded)
    parts = [f"[{node.node_id}] {node.class_name}"]
    if text:
        parts.append(f'"{_quoted(text)}"')
    if node.desc:
        parts.append(f'desc="{_quoted(node.desc)}"')
    if node.flags:
        parts.append("{" + ", ".join(sorted(node.flags)) + "}")
    return " ".join(parts)


def _quoted(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
