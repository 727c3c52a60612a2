"""The worst planner answer within the bounds: what checking it costs the service, in process.

    .venv/bin/python -m bench.worst_plan [--repeat 5]

A planner reads untrusted screen text, so its answer is an attacker's: this bench builds the
costliest answers a planner can give on the largest screen the contract allows (a 64 KB view
tree of clickable rows, each with a label and an icon), and times the plan rules and the
answer's composition on them, as `POST /v1/commands` runs them after the planner answered:

- `2000 steps`: two thousand TAPs, each on a node of the screen (past the step bound);
- `20 taps`: a legal plan of twenty TAPs on the screen's last rows (the deepest look-ups);
- `20 scrolls`: a legal plan of twenty SCROLLs on rows inside the list (each finds its list).

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
    lines = ["[root] FrameLayout", "  [list] RecyclerView {scrollable}"]
    rows: list[str] = []
    index = 0
    while True:
        row = [
            f'    [r{index}] LinearLayout desc="Chat {index}, {salt}" {{clickable}}',
            f'      [t{index}] TextView "Message preview {index}, quite long to read {salt}"',
            f"      [i{index}] ImageView",
        ]
        if sum(len(line) + 1 for line in lines + row) > SCREEN_BYTES:
            break
        lines += row
        rows.append(f"r{index}")
        index += 1
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


def timed(
    case: Callable[[str, list[str]], dict[str, Any]], repeat: int
) -> tuple[float, float, str]:
    """Median CPU and wall milliseconds over `repeat` runs, each on a screen of its own (cold)."""
    cpu, wall, outcome = [], [], ""
    for run in range(repeat):
        summary, rows = big_screen(salt=run)
        raw = case(summary, rows)
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        outcome = check(raw, summary)
        cpu.append(time.process_time() - cpu_start)
        wall.append(time.perf_counter() - wall_start)
    return statistics.median(cpu) * 1000, statistics.median(wall) * 1000, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    summary, rows = big_screen()
    cases: dict[str, Callable[[str, list[str]], dict[str, Any]]] = {
        "2000 steps": lambda _, rows: plan([step("TAP", rows[i % len(rows)]) for i in range(2000)]),
        "20 taps": lambda _, rows: plan([step("TAP", row) for row in rows[-20:]]),
        "20 scrolls": lambda _, rows: plan(
            [step("SCROLL", row.replace("r", "t"), "down") for row in rows[-20:]]
        ),
    }
    print(f"screen: {len(summary.encode())} bytes, {len(rows)} rows; median of {args.repeat}")
    for name, case in cases.items():
        cpu_ms, wall_ms, outcome = timed(case, args.repeat)
        print(f"  {name:<12} CPU {cpu_ms:8.1f} ms   wall {wall_ms:8.1f} ms   {outcome}")


def plan(steps: list[dict[str, Any]]) -> dict[str, Any]:
    return {"package_name": APP, "steps": steps}


if __name__ == "__main__":
    main()
