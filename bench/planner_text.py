"""The offline planner on written transcripts, through the plan rules alone: no speech.

    .venv/bin/python -m bench.planner_text [--json FILE] [--failures]

Each case is a transcript, a screen and the plan it must give (`()`: it must be refused), as
the planner will see a remote transcriber's text before any other planner does. Each is run
through `planner.plan` and `rules.validate_plan` (the screen's app granted, the transcript
confident) and counted as:

- right: ACCEPTED with the expected steps, or refused when it must be;
- asked: CONFIRMATION_REQUIRED with the expected steps;
- refused: REJECTED when a plan was expected;
- wrong: any other plan, split into acted (ACCEPTED) and asked (CONFIRMATION_REQUIRED).

Sets: the grammar's commands as the speech bench writes them (`cases.ENGLISH`, `cases.AMHARIC`:
Amharic with its object marker and "to" fused, as a transcriber writes them), its dictations,
its sentences that are no command (on the chat screens: they must be refused), and the
everyday phrasings of `accuracy/phrasings.py` (written with the planner's reading of them, not
held out). It imports only what the planner has long had, so it measures an older build too:
`PYTHONPATH=OLDTREE/src:. python -m bench.planner_text`.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from bench.accuracy import cases, phrasings
from lisan.core.locale import Locale
from lisan.plans.rules import validate_plan
from lisan.plans.safe import PlanRejected
from lisan.providers.base import Screen
from lisan.providers.local import planner
from lisan.screen.viewtree import ViewTree

Steps = tuple[cases.Step, ...]
SCREENS = {**cases.SCREENS, **phrasings.SCREENS}
GRANTED = sorted({*cases.GRANTED, *phrasings.GRANTED})
OUTCOMES = ("right", "asked", "refused", "wrong_acted", "wrong_asked")


def answered(said: str, language: Locale, screen_key: str) -> tuple[str, str | None, Steps]:
    """Status, reason and steps of the command route for a confident transcript."""
    screen = SCREENS[screen_key]
    raw = planner.plan(said, Screen(screen.package, screen.tree, granted=screen.package in GRANTED),
                       language, GRANTED)  # fmt: skip
    if not raw["steps"]:
        return "REJECTED", str(raw.get("reason", "nothing_to_do")), ()
    try:
        safe = validate_plan(raw, ViewTree(screen.tree), set(GRANTED),
                             current_package=screen.package)  # fmt: skip
    except PlanRejected as rejected:
        return "REJECTED", str(rejected.reason), ()
    status = "CONFIRMATION_REQUIRED" if safe.requires_confirmation(transcriber_confident=True) \
        else "ACCEPTED"  # fmt: skip
    return status, None, tuple((s.action_type, s.target_node_id) for s in safe.steps)


def outcome(expected: Steps, status: str, steps: Steps) -> str:
    if status == "REJECTED":
        return "right" if not expected else "refused"
    if expected and steps == expected:
        return "right" if status == "ACCEPTED" else "asked"
    return "wrong_acted" if status == "ACCEPTED" else "wrong_asked"


def sets() -> dict[str, list[tuple[Locale, str, str, Steps]]]:
    """Each set's cases: (language, screen, said, expected steps)."""
    en, am = Locale.EN_US, Locale.AM_ET
    typed, sent = (("TEXT_INPUT", "n3"),), (("TEXT_INPUT", "n3"), ("TAP", "n4"))

    def dictated(said: str) -> Steps:
        return sent if said.startswith("send ") else typed

    return {
        "grammar en": [(en, c.screen, c.said, c.steps) for c in cases.ENGLISH],
        "grammar am": [(am, c.screen, c.said, c.steps) for c in cases.AMHARIC],
        "dictation en": [(en, "chat", s, dictated(s)) for s in cases.DICTATION_ENGLISH],
        "dictation am": [(am, "chat_am", s, typed) for s in cases.DICTATION_AMHARIC],
        "no command en": [(en, "chat", s, ()) for s in cases.OUT_OF_GRAMMAR_ENGLISH],
        "no command am": [
            (am, "chat_am", s, ())
            for s in cases.OUT_OF_GRAMMAR_AMHARIC + cases.OUT_OF_GRAMMAR_AMHARIC_HELD_OUT
        ],
        "phrasings en": [(en, screen, said, steps) for screen, said, steps in phrasings.ENGLISH],
        "phrasings am": [(am, screen, said, steps) for screen, said, steps in phrasings.AMHARIC],
    }


def run(show_failures: bool) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for name, made in sets().items():
        counts: Counter[str] = Counter()
        for language, screen, said, expected in made:
            status, reason, steps = answered(said, language, screen)
            got = outcome(expected, status, steps)
            counts[got] += 1
            if show_failures and got not in ("right", "asked"):
                print(f"  {name} | {screen} | {said!r}: {got} {status} {reason or ''} {steps}")
        table[name] = {key: counts[key] for key in OUTCOMES} | {"cases": len(made)}
    return table


def report(table: dict[str, dict[str, int]]) -> Iterable[str]:
    yield "| set | cases | right | asked | refused | wrong (acted / asked) |"
    yield "|---|---|---|---|---|---|"
    for name, row in table.items():
        yield (f"| {name} | {row['cases']} | {row['right']} | {row['asked']} | {row['refused']} "
               f"| {row['wrong_acted']} / {row['wrong_asked']} |")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path)
    parser.add_argument("--failures", action="store_true", help="print each miss")
    args = parser.parse_args()
    table = run(args.failures)
    print("\n".join(report(table)))
    if args.json:
        args.json.write_text(json.dumps(table, indent=2))


if __name__ == "__main__":
    main()
