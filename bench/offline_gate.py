"""Replay the second ear's gate on the outcomes a run of `bench.offline --json FILE` wrote, at
every threshold of its grid, fitted held out (`bench.accuracy.gate`).

    .venv/bin/python -m bench.offline_gate FILE
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from types import SimpleNamespace

from bench.accuracy.gate import calibrate_gate
from bench.accuracy.route import planned
from lisan.core.settings import Settings


def main() -> None:
    """Replay the gate on the outcomes a run wrote (`bench.offline --json FILE`)."""
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("outcomes", type=Path)
    args = parser.parse_args()
    outcomes = []
    for raw in json.loads(args.outcomes.read_text()):
        replay = raw.get("replay")
        raw["replay"] = SimpleNamespace(**replay) if replay else None
        raw["expected"] = (
            tuple(tuple(step) for step in raw["expected"]) if raw.get("expected") else None
        )
        outcomes.append(SimpleNamespace(**raw))
    result = calibrate_gate(outcomes, planned, Settings().confidence_threshold)
    print(json.dumps(result, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
