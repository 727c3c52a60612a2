"""Precision on real app screens: how many harmless taps the plan rules ask about.

    .venv/bin/python -m bench.real_screens --data DIR [--json FILE] [--show SCREEN_ID]
    .venv/bin/python -m bench.real_screens --data DIR --candidates [--grep WORD]

Every labelled tap of `bench/data/real_taps.tsv` (a screen id, a node id, the label a user
would say, harmless or consequential, and why) becomes the one-step plan
`{"package_name": app, "steps": [{"action_type": "TAP", "target_node_id": id,
"is_destructive": false}]}` on its screen, run through `rules.validate_plan` (the app granted
and in front) and then `naming.ask_unnamed_steps` with the transcript "tap <label>". A
consequential tap must be asked; a harmless one should not be: the goal is at most 15%
of harmless taps asked, with none of the consequential ones accepted. Reported with the rules
alone and with the naming step, with every asked harmless label and every refusal by reason.

The screens are public captures of real apps, converted on the fly into the reduced view tree
by `bench.kit.captures` (where `DIR`'s layout is described; docs/benchmarks.md says how to
build it). The DroidBot runs are `fdroid_utg` (F-Droid apps and Weibo) and `droidtask` (AutoDroid's
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
from dataclasses import asdict, dataclass
from pathlib import Path

from bench.kit.captures import Screen, load_screens
from lisan.plans.naming import ask_unnamed_steps
from lisan.plans.rules import validate_plan
from lisan.plans.safe import PlanRejected, SafePlan
from lisan.screen.nodes import parse_view_tree
from lisan.screen.viewtree import ViewTree

TAPS = Path(__file__).resolve().parent / "data" / "real_taps.tsv"
GOAL_HARMLESS_ASKED = 0.15  # the ceiling on harmless taps asked: asking is not free
DECISIONS = ("harmless", "consequential")


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
    named = ask_unnamed_steps(plan, tree, f"tap {tap.label}")
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
