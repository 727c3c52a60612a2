"""Local first on real app screens, held out: how many commands the rules plan right alone.

    .venv/bin/python -m bench.real_commands --data DIR [--json FILE] [--failures] [--makeup]

Each row of `bench/data/real_commands.tsv` (a real screen, a language, a kind, what the user
said, the plan a careful human makes there or `-` when nothing can do it) is run as the service
runs a confident remote transcript with LISAN_PLAN_LOCAL_FIRST on: the screen converted as
`bench.real_screens` converts it (`bench.kit.captures`), its app granted and in front; the
rules' planner exactly as the service calls it (`commands.rules_first.rules_plan`: the words as
the rules read them, the longest transcript they read, joined commands left to the model);
then the plan rules' verdict exactly as the service gives it (`commands.pipeline.checked_plan`:
`validate_plan`, and the naming check only for a remote planner's plan, which the rules' plan
is not) and the confirmation decision for a confident transcript. Each row counts as:

- right: ACCEPTED with the expected steps, or refused when the row expects `-`;
- asked: CONFIRMATION_REQUIRED with the expected steps;
- to_model: the rules declined, so the language model would be called;
- refused: the rules' plan was rejected when a plan was expected;
- wrong_acted / wrong_asked: any other plan, acted on or behind a question.

Steps are compared as `bench.kit.held_out` says (a TAP by the node that takes it). The goals,
on `command` rows: right + asked at least 85%, to_model at most 15%, wrong_acted none; on
`instruction` rows the rules are expected to decline most, and wrong_acted must be none.
`--data` defaults to $LISAN_REAL_SCREENS (built as docs/benchmarks.md, "Precision on real app
screens", says). Never a timed test: it measures, it does not pass or fail (the exit status is 1
only when a row's screen or node is missing from `DIR`).
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
from bench.kit.held_out import (
    KINDS,
    LANGUAGES,
    RESULTS,
    SET,
    Row,
    Step,
    check_rows,
    load_rows,
    matches,
    result,
)
from lisan.commands.pipeline import checked_plan
from lisan.commands.rules_first import rules_plan
from lisan.core.locale import Locale
from lisan.plans.rules import required_packages
from lisan.providers.base import Screen as ProviderScreen
from lisan.screen.viewtree import ViewTree

GOAL_RIGHT = 0.85  # commands planned right (acted on or asked) by the rules alone
GOAL_TO_MODEL = 0.15  # commands the rules leave to the model


@dataclass(frozen=True, slots=True)
class Outcome:
    screen_id: str
    app: str
    language: str
    kind: str
    said: str
    expected: str
    result: str
    status: str | None  # None: the rules declined
    reason: str | None
    steps: list[str]


def shown(steps: tuple[Step, ...] | list[Step]) -> str:
    return " ; ".join(" ".join(filter(None, (s.action_type, s.target, s.payload))) for s in steps) \
        or "-"  # fmt: skip


def judge(row: Row, screen: Screen) -> Outcome:
    """What the service answers on the row with local first on, and how it counts."""
    apps = [screen.app]  # the app in front is granted
    seen = ProviderScreen(screen.app, screen.summary, granted=True)
    raw = rules_plan(row.said, seen, Locale(row.language), apps)
    expected = shown(row.expected)
    if raw is None:
        return Outcome(row.screen_id, screen.app, row.language, row.kind, row.said, expected,
                       "to_model", None, None, [])  # fmt: skip
    tree = ViewTree(screen.summary)
    granted = frozenset(required_packages(raw, screen.app)) & set(apps)
    checked = checked_plan(raw, tree, granted, current_package=screen.app, transcript=row.said,
                           planned_remotely=False)  # fmt: skip
    if isinstance(checked, str):
        refused = result("REJECTED", False, refuse=row.refuse)
        return Outcome(row.screen_id, screen.app, row.language, row.kind, row.said, expected,
                       refused, "REJECTED", checked, [])  # fmt: skip
    status = "CONFIRMATION_REQUIRED" if checked.requires_confirmation(transcriber_confident=True) \
        else "ACCEPTED"  # fmt: skip
    steps = [Step(s.action_type, s.target_node_id, s.payload) for s in checked.steps]
    verdict = result(status, matches(steps, row.expected, tree), refuse=row.refuse)
    return Outcome(row.screen_id, screen.app, row.language, row.kind, row.said, expected,
                   verdict, status, None, [shown([s]) for s in steps])  # fmt: skip


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.1f}%)" if whole else "0/0"


def makeup(rows: list[Row], screens: dict[str, Screen]) -> None:
    """Rows per app, kind and language: what the set is made of."""
    apps = Counter(screens[row.screen_id].app for row in rows)
    print("\n| app | rows | command en / am | instruction |\n| --- | --- | --- | --- |")
    for app, count in sorted(apps.items(), key=lambda item: (-item[1], item[0])):
        mine = [row for row in rows if screens[row.screen_id].app == app]
        en = sum(row.kind == "command" and row.language == "en-US" for row in mine)
        am = sum(row.kind == "command" and row.language == "am-ET" for row in mine)
        print(f"| {app} | {count} | {en} / {am} | {count - en - am} |")


def report(outcomes: list[Outcome], failures: bool) -> None:
    screens = {o.screen_id for o in outcomes}
    apps = {o.app for o in outcomes}
    print(f"{len(outcomes)} rows on {len(screens)} screens of {len(apps)} apps, "
          f"{sum(o.expected == '-' for o in outcomes)} of them with nothing to do")  # fmt: skip
    print(f"\n| kind | language | rows | {' | '.join(RESULTS)} |")
    print("| --- | --- | --- |" + " --- |" * len(RESULTS))
    for kind in KINDS:
        for language in (*LANGUAGES, "all"):
            rows = [o for o in outcomes if o.kind == kind and language in (o.language, "all")]
            if rows:
                counts = Counter(o.result for o in rows)
                cells = " | ".join(str(counts[name]) for name in RESULTS)
                print(f"| {kind} | {language} | {len(rows)} | {cells} |")
    for kind in KINDS:
        rows = [o for o in outcomes if o.kind == kind]
        counts = Counter(o.result for o in rows)
        planned = counts["right"] + counts["asked"]
        print(f"\n{kind}s: right + asked {share(planned, len(rows))}"
              f"{' (goal at least 85%)' if kind == 'command' else ''}, "
              f"to the model {share(counts['to_model'], len(rows))}"
              f"{' (goal at most 15%)' if kind == 'command' else ''}, "
              f"wrong acted {counts['wrong_acted']} (goal none), "
              f"wrong asked {counts['wrong_asked']}, refused {counts['refused']}")  # fmt: skip
        if kind == "command":
            met = (planned >= GOAL_RIGHT * len(rows) and counts["to_model"] <= GOAL_TO_MODEL
                   * len(rows) and not counts["wrong_acted"])  # fmt: skip
            print(f"command goals {'met' if met else 'NOT met'}")
    if failures:
        for name in RESULTS[2:]:
            rows = [o for o in outcomes if o.result == name]
            if rows:
                print(f"\n== {name} ({len(rows)})")
            for o in rows:
                got = f"{o.status} ({o.reason})" if o.reason else (o.status or "declined")
                print(f"  [{o.kind} {o.language}] {o.said!r} on {o.screen_id}\n"
                      f"      expected {o.expected}; got {got} {' ; '.join(o.steps)}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=os.environ.get("LISAN_REAL_SCREENS"))
    parser.add_argument("--set", type=Path, default=SET, help="the rows (default the held-out set)")
    parser.add_argument("--json", type=Path, help="write every outcome there")
    parser.add_argument("--failures", action="store_true", help="list every row not right/asked")
    parser.add_argument("--makeup", action="store_true", help="rows per app, kind and language")
    args = parser.parse_args()
    if args.data is None:
        parser.error("--data DIR (or LISAN_REAL_SCREENS) is required")
    rows = load_rows(args.set)
    wanted = {row.screen_id for row in rows}
    screens = {s.screen_id: s for s in load_screens(args.data) if s.screen_id in wanted}
    problems = check_rows(rows, screens)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        raise SystemExit(1)
    outcomes = [judge(row, screens[row.screen_id]) for row in rows]
    report(outcomes, args.failures)
    if args.makeup:
        makeup(rows, screens)
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=1) + "\n")


if __name__ == "__main__":
    main()
