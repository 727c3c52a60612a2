"""The worst planner answer within the bounds: what checking it costs the service, in process.

    .venv/bin/python -m bench.worst_plan [--repeat 5]

A planner reads untrusted screen text, so its answer is an attacker's: this bench builds the
costliest answers a planner can give on the largest screen the contract allows (a 64 KB view
tree of clickable rows, each with a label and an icon), and times the plan rules and the
answer's composition on them, as `POST /v1/commands` runs them after the planner answered:

- `2000 steps`: two thousand TAPs, each on a node of the screen (past the step bound);
- `20 taps`: a legal plan of twenty TAPs on the screen's last rows (the deepest look-ups);
- `20 scrolls`: a legal plan of twenty SCROLLs on rows inside the list (each finds its list);
- `20 icon taps`: twenty TAPs on unlabelled icons, each read through the row around it;
- `20 bare taps`: twenty TAPs on the unlabelled icons of a screen of the most lines 64 KB
  holds, with no text around them: each is read up to the whole screen, and asked;
- `20 deep taps`: twenty TAPs on the deepest icons of layouts nested as deep as 64 KB allows.

Reported per case: the median CPU (process time) and wall time over `--repeat` runs, and the
answer (status and reason). The goal is under 50 ms of CPU for each.
"""

from __future__ import annotations

import argparse
import statistics
import time
import uuid
from collections.abc import Callable
from typing import Any

from lisan.commands.answers import answer, refusal
from lisan.commands.schemas import CommandStatus
from lisan.core.locale import Locale
from lisan.phrases.schemas import PhraseKey
from lisan.plans.rules import required_packages, validate_plan
from lisan.plans.safe import PlanRejected
from lisan.screen.viewtree import ViewTree

APP = "org.telegram.messenger"
SCREEN_BYTES = 65_536


def big_screen(salt: int = 0) -> tuple[str, list[str]]:
    """A view tree just under 64 KB: a scrollable list of clickable rows; the row ids. `salt`
    changes every label, so no reading is remembered from an earlier run."""
    return _fill(
        ["[root] FrameLayout", "  [list] RecyclerView {scrollable}"],
        lambda index: (
            f'    [r{index}] LinearLayout desc="Chat {index}, {salt}" {{clickable}}',
            f'      [t{index}] TextView "Message preview {index}, quite long to read {salt}"',
            f"      [i{index}] ImageView",
        ),
    )


def icon_screen(salt: int = 0) -> tuple[str, list[str]]:
    """Rows that are not clickable, each with a text and a clickable icon with no label (the
    rows hold `r` ids, the icons `i` ids): a tap on an icon reads its row around it."""
    return _fill(
        ["[root] FrameLayout", "  [list] RecyclerView {scrollable}"],
        lambda index: (
            f"    [r{index}] LinearLayout",
            f'      [t{index}] TextView "Message preview {index}, quite long to read {salt}"',
            f"      [i{index}] ImageButton {{clickable}}",
        ),
    )


def bare_screen(salt: int = 0) -> tuple[str, list[str]]:
    """The most lines 64 KB holds: one clickable icon per short line, no text anywhere, so a
    tap on one finds nothing around it to read but the whole screen."""
    return _fill(
        ["[root] FrameLayout", f'  [head] TextView "{salt}"'],
        lambda index: (f"  [r{index}] V {{clickable}}",),
    )


def deep_screen(salt: int = 0) -> tuple[str, list[str]]:
    """Layouts nested as deep as 64 KB allows, each holding a clickable icon with no label and
    no text anywhere: a tap on the deepest reads every layout around it, up to the screen."""
    lines = [f'[root] FrameLayout desc="{salt}"']
    rows: list[str] = []
    size = len(lines[0]) + 1
    while True:
        depth = len(rows) + 1
        row = (
            f"{'  ' * depth}[r{len(rows)}] LinearLayout",
            f"{'  ' * depth}  [i{len(rows)}] V {{clickable}}",
        )
        size += sum(len(line) + 1 for line in row)
        if size > SCREEN_BYTES:
            break
        lines += row
        rows.append(f"r{len(rows)}")
    return "\n".join(lines), rows


def _fill(lines: list[str], row_lines: Callable[[int], tuple[str, ...]]) -> tuple[str, list[str]]:
    size = sum(len(line) + 1 for line in lines)
    rows: list[str] = []
    while True:
        row = row_lines(len(rows))
        size += sum(len(line) + 1 for line in row)
        if size > SCREEN_BYTES:
            break
        lines += row
        rows.append(f"r{len(rows)}")
    return "\n".join(lines), rows


def step(action_type: str, target: str, payload: str | None = None) -> dict[str, Any]:
    return {
        "action_type": action_type,
        "target_node_id": target,
        "payload": payload,
        "is_destructive": False,
    }


def check(raw: dict[str, Any], summary: str) -> str:
    """The rules and the answer, as the route runs them once the planner answered."""
    tree = ViewTree(summary)
    granted = required_packages(raw, APP)
    command_id = uuid.uuid4()
    try:
        safe = validate_plan(raw, tree, granted, current_package=APP)
    except PlanRejected as rejected:
        response = refusal(
            command_id, CommandStatus.REJECTED, rejected.reason, PhraseKey.ERR_REJECTED
        )
    else:
        response = answer(command_id, safe, tree, locale=Locale.EN_US, transcript_confident=True)
    response.to_json()
    return f"{response.status.value} {response.reprompt_reason or ''}".strip()


Screen = Callable[[int], tuple[str, list[str]]]
Case = Callable[[list[str]], dict[str, Any]]


def timed(screen: Screen, case: Case, repeat: int) -> tuple[float, float, str]:
    """Median CPU and wall milliseconds over `repeat` runs, each on a screen of its own (cold)."""
    cpu, wall, outcome = [], [], ""
    for run in range(repeat):
        summary, rows = screen(run)
        raw = case(rows)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        outcome = check(raw, summary)
        cpu.append(time.process_time() - cpu_start)
        wall.append(time.perf_counter() - wall_start)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000, outcome


CASES: dict[str, tuple[Screen, Case]] = {
    "2000 steps": (
        big_screen,
        lambda rows: plan([step("TAP", rows[i % len(rows)]) for i in range(2000)]),
    ),
    "20 taps": (big_screen, lambda rows: plan([step("TAP", row) for row in rows[-20:]])),
    "20 scrolls": (
        big_screen,
        lambda rows: plan([step("SCROLL", row.replace("r", "t"), "down") for row in rows[-20:]]),
    ),
    "20 icon taps": (
        icon_screen,
        lambda rows: plan([step("TAP", row.replace("r", "i")) for row in rows[-20:]]),
    ),
    "20 bare taps": (bare_screen, lambda rows: plan([step("TAP", row) for row in rows[-20:]])),
    "20 deep taps": (
        deep_screen,
        lambda rows: plan([step("TAP", row.replace("r", "i")) for row in rows[-20:]]),
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"median of {args.repeat} runs, each on a fresh screen under {SCREEN_BYTES} bytes")
    for name, (screen, case) in CASES.items():
        summary, _ = screen(0)
        cpu_ms, wall_ms, outcome = timed(screen, case, args.repeat)
        shape = f"{screen.__name__} ({summary.count(chr(10)) + 1} lines)"
        print(f"  {name:<13} {shape:<26} CPU {cpu_ms:7.1f} ms  wall {wall_ms:7.1f} ms  {outcome}")


def plan(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"package_name": APP, "steps": steps}


if __name__ == "__main__":
    main()
