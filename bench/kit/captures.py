"""Real app screens, converted into the reduced view tree as the phone would send it.

The captures are public data sets brought with the `fetch` tool and never committed (their
licences differ; docs/benchmarks.md, "Precision on real app screens", says where each comes
from and how to build `DIR`):
    DIR/rico/<n>.json                   Rico view hierarchies (id `rico/<n>`)
    DIR/droidbot/<run>/.../state_*.json DroidBot states (id `droidbot/<path without .json>`)
Each capture becomes a `Screen`: its id, the app in front, and `screen.nodes`' text (one node
per visible view, ids `n1`, `n2`... in document order, invisible views and what they hold left
out). Shared by the benches that read real screens (`bench.real_screens`,
`bench.real_commands`, `bench.planner_interop --set real`), so they see the same trees.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class View:
    """One view of a capture, as the converter reads it, whatever its source format."""

    class_name: str
    text: str | None
    desc: str | None
    flags: tuple[str, ...]
    visible: bool
    children: tuple[View, ...]


@dataclass(frozen=True, slots=True)
class Screen:
    screen_id: str
    app: str
    summary: str


# --- the reduced view tree ---------------------------------------------------------------


def quoted(value: str) -> str:
    """A text as the tree quotes it: backslash and quote escaped, a line break as `\\n`."""
    value = value.replace("\\", "\\\\").replace('"', '\\"')
    value = value.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")
    return "".join(" " if ord(char) < 32 else char for char in value)


def summary(root: View) -> str:
    """The reduced view tree of `root`: each visible view a line, two spaces per depth."""
    lines: list[str] = []
    counter = 0

    def walk(view: View, depth: int) -> None:
        nonlocal counter
        if not view.visible:
            return
        counter += 1
        line = f"{'  ' * depth}[n{counter}] {short_class(view.class_name)}"
        if view.text and view.text.strip():
            line += f' "{quoted(view.text)}"'
        if view.desc and view.desc.strip():
            line += f' desc="{quoted(view.desc)}"'
        if view.flags:
            line += " {" + ",".join(view.flags) + "}"
        lines.append(line)
        for child in view.children:
            walk(child, depth + 1)

    walk(root, 0)
    return "\n".join(lines)


def short_class(name: str) -> str:
    """`android.widget.Button` as the phone names it: `Button` (an inner class keeps `$`)."""
    short = name.rsplit(".", 1)[-1] or "View"
    return "".join(char for char in short if not char.isspace() and char not in '"{}=') or "View"


def flags(
    *,
    clickable: bool,
    scrollable: bool,
    editable: bool,
    checked: bool,
    selected: bool,
    enabled: bool,
) -> tuple[str, ...]:
    named = {
        "clickable": clickable,
        "scrollable": scrollable,
        "editable": editable,
        "checked": checked,
        "selected": selected,
        "disabled": not enabled,
    }
    return tuple(name for name, on in named.items() if on)


def _text(value: Any) -> str | None:
    """A text field of a capture: a string, or Rico's one-element list for descriptions."""
    if isinstance(value, list):
        value = next((item for item in value if isinstance(item, str)), None)
    return value if isinstance(value, str) else None


def rico_view(node: dict[str, Any]) -> View:
    """A view of a Rico hierarchy (`activity.root`): flags by name, `visible-to-user`."""
    class_name = str(node.get("class") or "View")
    ancestors = " ".join(str(name) for name in node.get("ancestors") or [])
    children = tuple(rico_view(child) for child in node.get("children") or [] if child)
    return View(
        class_name=class_name,
        text=_text(node.get("text")),
        desc=_text(node.get("content-desc")),
        flags=flags(
            clickable=bool(node.get("clickable")),
            scrollable=bool(node.get("scrollable-vertical") or node.get("scrollable-horizontal")),
            editable="EditText" in class_name or "EditText" in ancestors,
            checked=bool(node.get("checked")),
            selected=bool(node.get("selected")),
            enabled=node.get("enabled", True) is not False,
        ),
        visible=node.get("visible-to-user", True) is not False,
        children=children,
    )


def droidbot_view(views: list[dict[str, Any]], index: int) -> View:
    """A view of a DroidBot state (a flat list; each view names its children's indices)."""
    node = views[index]
    children = tuple(
        droidbot_view(views, child)
        for child in node.get("children") or []
        if isinstance(child, int) and child > index and child < len(views)
    )
    return View(
        class_name=str(node.get("class") or "View"),
        text=_text(node.get("text")),
        desc=_text(node.get("content_description")),
        flags=flags(
            clickable=bool(node.get("clickable")),
            scrollable=bool(node.get("scrollable")),
            editable=bool(node.get("editable")),
            checked=bool(node.get("checked")),
            selected=bool(node.get("selected")),
            enabled=node.get("enabled", True) is not False,
        ),
        visible=node.get("visible", True) is not False,
        children=children,
    )


def load_screens(data: Path) -> Iterator[Screen]:
    """Every capture under `data` as a Screen; a file that is not a capture is skipped."""
    for path in sorted((data / "rico").glob("*.json")):
        capture = json.loads(path.read_text(encoding="utf-8"))
        root = (capture.get("activity") or {}).get("root")
        if isinstance(root, dict):
            app = str(capture.get("activity_name") or "").split("/")[0]
            yield Screen(f"rico/{path.stem}", app, summary(rico_view(root)))
    for path in sorted((data / "droidbot").rglob("state_*.json")):
        capture = json.loads(path.read_text(encoding="utf-8"))
        views = capture.get("views")
        if isinstance(views, list) and views:
            app = str(capture.get("foreground_activity") or "").split("/")[0]
            name = path.relative_to(data / "droidbot").with_suffix("").as_posix()
            yield Screen(f"droidbot/{name}", app, summary(droidbot_view(views, 0)))
