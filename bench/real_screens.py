"""Precision on real app screens: how many harmless taps the plan rules ask about.

    .venv/bin/python -m bench.real_screens --data DIR [--json FILE] [--show SCREEN_ID]
    .venv/bin/python -m bench.real_screens --data DIR --candidates [--grep WORD]

Every labelled tap of `bench/data/real_taps.tsv` (a screen id, a node id, the label a user
would say, harmless or consequential, and why) becomes the one-step plan
`{"package_name": app, "steps": [{"action_type": "TAP", "target_node_id": id,
"is_destructive": false}]}` on its screen, run through `rules.validate_plan` (the app granted
and in front) and then `naming.ask_unnamed_taps` with the transcript "tap <label>". A
consequential tap must be asked; a harmless one should not be: the goal is at most 15%
of harmless taps asked, with none of the consequential ones accepted. Reported with the rules
alone and with the naming step, with every asked harmless label and every refusal by reason.

The screens are public captures of real apps, converted on the fly into the reduced view tree
(`screen.nodes`; one node per visible view, ids `n1`, `n2`... in document order, invisible views
and what they hold left out). `DIR` holds copies of them, brought with the `fetch` tool and
never committed (their licences differ; docs/benchmarks.md says where each comes from):
    DIR/rico/<n>.json                   Rico view hierarchies (id `rico/<n>`)
    DIR/droidbot/<run>/.../state_*.json DroidBot states (id `droidbot/<path without .json>`)
The DroidBot runs are `fdroid_utg` (F-Droid apps and Weibo) and `droidtask` (AutoDroid's
DroidTask captures of the Simple Mobile Tools apps, Firefox and system screens).

Labels: consequential when the tap itself commits (money moved, data deleted or overwritten, a
message sent or a call placed in the user's name, posting, signing, borrowing, buying, a paid
service requested, a membership closed), including the assenting button of a dialog whose
question commits ("Yes" under "delete all events?") and a control that deletes after the app's
own question ("Delete note"). Harmless: what only opens, shows or picks (a compose screen behind
"Send SMS", a settings row named "Delete browsing data", a dialpad key), reversible settings,
declining buttons. A permission grant ("ALLOW", "Allow all the time", "SET AS DEFAULT") is a
judgement call: labelled harmless, since it moves no money, sends and deletes nothing, and the
system can revoke it.
`--data` defaults to $LISAN_REAL_SCREENS. Never a timed test: it measures, it does not pass
or fail (the exit status is 1 only when a labelled screen or node is missing from `DIR`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lisan.plans.naming import ask_unnamed_taps
from lisan.plans.rules import validate_plan
from lisan.plans.safe import PlanRejected, SafePlan
from lisan.screen.nodes import parse_view_tree
from lisan.screen.viewtree import ViewTree

TAPS = Path(__file__).resolve().parent / "data" / "real_taps.tsv"
GOAL_HARMLESS_ASKED = 0.15  # the ceiling on harmless taps asked: asking is not free
DECISIONS = ("harmless", "consequential")


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


@dataclass(frozen=True, slots=True)
class Tap:
    screen_id: str
    node_id: str
    label: str
    decision: str
    reason: str


@dataclass(frozen=True, slots=True)
class Outcome:
    screen_id: str
    node_id: str
    label: str
    decision: str
    rules: str  # "accepted", "asked: destructive", "asked: unread", or "refused: <reason>"
    named: str  # the same, after the naming step


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


# --- the labelled taps ---------------------------------------------------------------------


def load_taps(path: Path) -> list[Tap]:
    """The labelled taps: tab-separated, a header line, `#` lines are comments."""
    taps = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip() or line.startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 5 or fields[3] not in DECISIONS:
            raise SystemExit(f"{path}:{number}: expected 5 fields and a decision in {DECISIONS}")
        taps.append(Tap(*fields))
    return taps


def verdict(plan: SafePlan) -> str:
    step = plan.steps[0]
    if step.is_destructive:
        return "asked: destructive"
    return "asked: unread" if step.unread else "accepted"


def judge(tap: Tap, screen: Screen) -> Outcome:
    """The rules' answer on the tap, alone and with the naming step."""
    tree = ViewTree(screen.summary)
    raw = {
        "package_name": screen.app,
        "steps": [{"action_type": "TAP", "target_node_id": tap.node_id, "is_destructive": False}],
    }
    try:
        plan = validate_plan(raw, tree, {screen.app}, current_package=screen.app)
    except PlanRejected as rejected:
        refused = f"refused: {rejected.reason}"
        return Outcome(tap.screen_id, tap.node_id, tap.label, tap.decision, refused, refused)
    named = ask_unnamed_taps(plan, tree, f"tap {tap.label}")
    return Outcome(
        tap.screen_id, tap.node_id, tap.label, tap.decision, verdict(plan), verdict(named)
    )


def check_labels(taps: list[Tap], screens: dict[str, Screen]) -> list[str]:
    """Every labelled tap's screen and node exist, and the node still shows its label (itself or
    under it): a converter change that renumbers nodes must not move a label onto another node."""
    problems = []
    for tap in taps:
        screen = screens.get(tap.screen_id)
        if screen is None:
            problems.append(f"{tap.screen_id}: no such screen in the data")
            continue
        tree = ViewTree(screen.summary)
        branch = tree.branch(tap.node_id)
        if branch is None:
            problems.append(f"{tap.screen_id} {tap.node_id}: no such node")
        elif not any(tap.label in text for text in tree.texts(branch)):
            problems.append(f"{tap.screen_id} {tap.node_id}: does not show {tap.label!r}")
    return problems


# --- the report ----------------------------------------------------------------------------


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def report(outcomes: list[Outcome], taps: list[Tap], screens: dict[str, Screen]) -> None:
    harmless = [o for o in outcomes if o.decision == "harmless"]
    consequential = [o for o in outcomes if o.decision == "consequential"]
    apps = {screens[t.screen_id].app for t in taps}
    print(
        f"{len(outcomes)} labelled taps on {len({t.screen_id for t in taps})} screens of "
        f"{len(apps)} apps: {len(harmless)} harmless, {len(consequential)} consequential"
    )
    for stage in ("rules", "named"):
        title = "rules alone" if stage == "rules" else "rules + naming (transcript 'tap <label>')"
        print(f"\n== {title}")
        asked = [o for o in harmless if getattr(o, stage).startswith("asked")]
        missed = [o for o in consequential if getattr(o, stage) == "accepted"]
        refused = Counter(
            getattr(o, stage) for o in outcomes if getattr(o, stage).startswith("refused")
        )
        goal = "within" if len(asked) <= GOAL_HARMLESS_ASKED * len(harmless) else "OVER"
        print(f"harmless taps asked: {share(len(asked), len(harmless))}, {goal} the 15% goal")
        print(f"consequential taps NOT asked: {share(len(missed), len(consequential))}")
        print(f"refused: {dict(refused) or 'none'}")
        for title_, rows in (("harmless asked", asked), ("consequential not asked", missed)):
            if rows:
                print(f"  {title_}:")
            for o in rows:
                print(f"    {o.screen_id} {o.node_id} {o.label!r}: {getattr(o, stage)}")


def candidates(screens: list[Screen], word: str | None) -> None:
    """Every node a tap acts on, per screen, for labelling: its id and what it shows."""
    for screen in screens:
        nodes = parse_view_tree(screen.summary)
        tree = ViewTree(screen.summary)
        rows = []
        for node in nodes.values():
            branch = tree.branch(node.node_id)
            if branch is None or not node.flags & {"clickable", "editable"}:
                continue
            shown = " | ".join(tree.texts(branch))[:120]
            if shown and (word is None or word.lower() in shown.lower()):
                rows.append(f"  {node.node_id}\t{node.class_name}\t{shown}")
        if rows:
            print(f"{screen.screen_id}\t{screen.app}")
            print("\n".join(rows))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("LISAN_REAL_SCREENS"))
    parser.add_argument("--taps", type=Path, default=TAPS)
    parser.add_argument("--json", type=Path, help="write every outcome there")
    parser.add_argument("--show", help="print one screen's reduced view tree and stop")
    parser.add_argument("--candidates", action="store_true", help="list tappable nodes")
    parser.add_argument("--grep", help="with --candidates: only nodes showing this word")
    args = parser.parse_args()
    if args.data is None:
        parser.error("--data DIR (or LISAN_REAL_SCREENS) is required")
    screens = {screen.screen_id: screen for screen in load_screens(args.data)}
    if args.show:
        print(screens[args.show].summary)
        return
    if args.candidates:
        candidates(list(screens.values()), args.grep)
        return
    taps = load_taps(args.taps)
    problems = check_labels(taps, screens)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        raise SystemExit(1)
    outcomes = [judge(tap, screens[tap.screen_id]) for tap in taps]
    report(outcomes, taps, screens)
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1) + "\n")


if __name__ == "__main__":
    main()
