"""The speech-presence stage of POST /v1/commands alone: CPU per 5 s command.

    .venv/bin/python -m bench.speech_presence [--rounds 5] [--calls 30]

`lisan.commands.audio.has_speech` (energy, then Silero VAD on the loud stretches) on four
5-second recordings: speech from its first instant ("open telegram", espeak-ng, as
bench.commands sends), the same speech after 1 s of a quiet room, loud hiss (the energy stage
refuses it), and knocks (loud, but no voice: the model hears each knock). Beside it, the model
over the whole recording from its start, as the stage ran before it heard only the loud
stretches. Process CPU time per call; the median of --rounds rounds of --calls calls each.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from lisan.commands.audio import has_speech, has_voice, is_loud
from lisan.say import speak

RATE = 16_000
SECONDS = 5.0


def recordings() -> dict[str, bytes]:
    rng = np.random.default_rng(1)
    n = int(SECONDS * RATE)

    def pcm(samples: np.ndarray) -> bytes:
        clipped: np.ndarray = np.clip(samples, -32768, 32767)
        return clipped.astype("<i2").tobytes()

    said = np.frombuffer(speak("open telegram", "en-us"), dtype="<i2").astype(float)
    from_start = np.zeros(n)
    from_start[: len(said)] = said
    after_pause = rng.normal(0, 30, n)
    after_pause[RATE : RATE + len(said)] += said
    knocks = rng.normal(0, 20, n)
    for start in rng.integers(0, n - 400, 10):
        knocks[start : start + 400] += 12000 * rng.normal(0, 1, 400) * np.exp(-np.arange(400) / 60)
    return {
        "speech from 0 s": pcm(from_start),
        "speech from 1 s": pcm(after_pause),
        "hiss": pcm(rng.normal(0, 3000, n)),
        "knocks": pcm(knocks),
    }


def cpu_ms(check: Callable[[bytes], bool], pcm: bytes, rounds: int, calls: int) -> float:
    check(pcm)  # the detector is made on the first call
    per_round = []
    for _ in range(rounds):
        started = time.process_time()
        for _ in range(calls):
            check(pcm)
        per_round.append((time.process_time() - started) * 1000 / calls)
    return statistics.median(per_round)


def whole_recording(pcm: bytes) -> bool:
    return is_loud(pcm) and has_voice(pcm)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=30)
    args = parser.parse_args()
    print(f"{'5 s recording':18} {'speech?':>8} {'stage ms':>9} {'whole-recording model ms':>25}")
    for name, pcm in recordings().items():
        stage = cpu_ms(has_speech, pcm, args.rounds, args.calls)
        whole = cpu_ms(whole_recording, pcm, args.rounds, args.calls)
        print(f"{name:18} {has_speech(pcm)!s:>8} {stage:9.1f} {whole:25.1f}")


if __name__ == "__main__":
    main()
