"""Closed-set word accuracy on real voices, by pitch band.

    .venv/bin/python -m bench.real_voices [--json FILE] [--failures]

Decodes every word clip of ../shared/speech/ (Google Speech Commands, one person saying one
word; see its README) with the product's recogniser against a grammar of the data set's 35
words plus the product's English out-of-grammar defence (the garbage loop,
`grammar.GARBAGE_WEIGHT`), and counts the words heard right. The clips are grouped by the
speaker's median F0 (`median_f0`): below 165 Hz and from 165 Hz, the two halves of the issue-19
goal (at least 92% in each band, at most 3 points apart). Reported five ways: pocketsphinx
with the grammar alone (no garbage loop) and with the garbage loop; then the second ear
(`hearing`): Whisper tiny.en's best of the 35 words, that best agreeing with pocketsphinx's
plain grammar, and the product's gate (agreement, or Whisper alone at
`hearing.ENGLISH_CONFIDENT`) acting on the right word. `--option NAME=VALUE` sets one
pocketsphinx setting (dither, warp_type, warp_params...) to measure it; `--garbage-weight`
moves the loop and `--english-wip` the English word insertion penalty.
Never a timed test: it measures, it does not pass or fail.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from bench.accuracy.decoding import add_decoder_settings
from bench.kit.figures import pct
from lisan.core.locale import Locale
from lisan.providers.local.grammar import GARBAGE_WEIGHT, GARBAGE_WORDS, Grammar
from lisan.providers.local.hearing import ENGLISH_CONFIDENT
from lisan.providers.local.phones import Pronouncer
from lisan.providers.local.recognizer import Recognizer
from lisan.providers.local.whisper import weights
from lisan.providers.local.whisper.scorer import Scorer

SHARED_SPEECH = Path(__file__).resolve().parents[2] / "shared" / "speech"
SAMPLE_RATE = 16_000
HIGH_PITCH_HZ = 165.0  # the split between the lower and the higher voices
F0_RANGE_HZ = (60.0, 450.0)
YIN_THRESHOLD = 0.15
YIN_FALLBACK = 0.35  # no dip under the threshold: the deepest, if this clear


@dataclass
class Clip:
    file: str
    word: str
    f0: float
    band: str  # "low" (< 165 Hz), "high", or "unvoiced" (no F0 found)
    plain: str  # pocketsphinx, the grammar alone: the second ear's partner
    heard: str  # pocketsphinx with the garbage loop (the gate before the second ear)
    whisper: str  # Whisper's best of the 35 words
    whisper_score: float


def median_f0(pcm: bytes) -> float:
    """The median F0 (Hz) over a clip's voiced frames, by YIN (de Cheveigne and Kawahara 2002):
    25 ms windows every 10 ms, the cumulative-mean-normalised difference, its first dip under
    0.15 in the voice's lag range, refined to the dip's minimum. A frame is voiced when it
    is within 30 dB of the loudest and has such a dip. NaN when nothing is voiced."""
    x = np.frombuffer(pcm, dtype="<i2").astype(float)
    window, hop = 400, 160
    shortest, longest = int(SAMPLE_RATE / F0_RANGE_HZ[1]), int(SAMPLE_RATE / F0_RANGE_HZ[0])
    starts = range(0, len(x) - window - longest, hop)
    if not starts:
        return float("nan")
    energies = np.array([float(np.dot(x[i : i + window], x[i : i + window])) for i in starts])
    pitches = []
    for start, energy in zip(starts, energies, strict=True):
        if energy < energies.max() * 1e-3:
            continue
        frame = x[start : start + window + longest + 1]
        head = frame[:window]
        squares = np.concatenate(([0.0], np.cumsum(frame**2)))
        lagged = squares[window : window + longest + 1] - squares[: longest + 1]
        cross = np.correlate(frame, head, mode="valid")[: longest + 1]
        difference = np.maximum(squares[window] + lagged - 2 * cross, 0.0)
        cumulative = np.cumsum(difference[1:])
        normalised = np.ones_like(difference)
        normalised[1:] = difference[1:] * np.arange(1, longest + 1) / np.maximum(cumulative, 1e-9)
        dips = np.nonzero(normalised[shortest:longest] < YIN_THRESHOLD)[0]
        if len(dips):
            lag = shortest + int(dips[0])
        elif normalised[shortest:longest].min() < YIN_FALLBACK:
            lag = shortest + int(np.argmin(normalised[shortest:longest]))
        else:
            continue
        while lag + 1 < longest and normalised[lag + 1] < normalised[lag]:
            lag += 1
        pitches.append(SAMPLE_RATE / lag)
    return float(np.median(pitches)) if pitches else float("nan")


def word_grammar(
    words: list[str], pronouncer: Pronouncer, *, garbage: bool, weight: str = GARBAGE_WEIGHT
) -> Grammar:
    readings = pronouncer.english(words, phonetic=False)
    body = " | ".join(words)
    if not garbage or weight == "off":
        jsgf = f"#JSGF V1.0;\ngrammar command;\npublic <command> = ( {body} );\n"
        return Grammar(jsgf, readings)
    loop = " | ".join(GARBAGE_WORDS)
    readings.update({word: [phone] for word, phone in GARBAGE_WORDS.items()})
    jsgf = (
        "#JSGF V1.0;\ngrammar command;\n"
        f"public <command> = /1/ ( {body} ) | /{weight}/ <garbage>;\n"
        f"<garbage> = ( {loop} )+;\n"
    )
    return Grammar(jsgf, readings)


def run(recognizer: Recognizer | None = None, garbage_weight: str = GARBAGE_WEIGHT) -> list[Clip]:
    manifest = [
        line.split("\t") for line in (SHARED_SPEECH / "manifest.tsv").read_text().splitlines()[1:]
    ]
    clips = [(file, word) for file, word, kind in manifest if kind == "word"]
    words = sorted({word for _, word in clips})
    pronouncer = Pronouncer()
    threadpool_limits(limits=1)
    scorer = Scorer(weights.load())
    recognizer = recognizer or Recognizer(scorer=scorer)
    closed = word_grammar(words, pronouncer, garbage=False)
    # The loop the product used before the second ear, unless a weight is given.
    loop_weight = "1e-26" if garbage_weight == "off" else garbage_weight
    guarded = word_grammar(words, pronouncer, garbage=True, weight=loop_weight)
    result = []
    for file, word in clips:
        pcm = (SHARED_SPEECH / file).read_bytes()
        f0 = median_f0(pcm)
        plain = recognizer.command_hypothesis(pcm, closed, Locale.EN_US)
        looped = recognizer.command_hypothesis(pcm, guarded, Locale.EN_US)
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / 32768.0
        scored = scorer.score(scorer.listen(samples), words)
        band = "unvoiced" if np.isnan(f0) else "high" if f0 >= HIGH_PITCH_HZ else "low"
        result.append(
            Clip(
                file, word, f0, band, plain, looped, words[scored.best], scored.scores[scored.best]
            )
        )
    return result


def summary(clips: list[Clip]) -> dict[str, object]:
    table: dict[str, object] = {}
    for band in ("low", "high", "unvoiced", "all"):
        chosen = [c for c in clips if band in (c.band, "all")]
        n = len(chosen)
        closed = sum(c.plain == c.word for c in chosen)
        guarded = sum(c.heard == c.word for c in chosen)
        garbage = sum(c.heard.startswith("g_") or not c.heard for c in chosen)
        whisper = sum(c.whisper == c.word for c in chosen)
        agreed = sum(c.whisper == c.word and c.plain == c.word for c in chosen)
        acted = sum(
            c.whisper == c.word and (c.plain == c.word or c.whisper_score >= ENGLISH_CONFIDENT)
            for c in chosen
        )
        table[band] = {
            "clips": n,
            "median_f0_hz": _median_f0(chosen),
            "closed_grammar_alone": pct(closed, n),
            "with_garbage_loop": pct(guarded, n),
            "taken_by_garbage_loop": pct(garbage, n),
            "whisper_closed_set": pct(whisper, n),
            "both_ears_agree_and_right": pct(agreed, n),
            "second_ear_gate_right": pct(acted, n),
        }
    return table


def _median_f0(clips: list[Clip]) -> float | None:
    voiced = [c.f0 for c in clips if not np.isnan(c.f0)]
    return round(float(np.median(voiced)), 1) if voiced else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", type=Path, help="write every clip's outcome here")
    parser.add_argument("--failures", action="store_true", help="list every word heard wrong")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a decoder setting"
    )
    add_decoder_settings(parser)
    args = parser.parse_args()
    options = dict(option.split("=", 1) for option in args.option)
    if not SHARED_SPEECH.is_dir():
        sys.exit(f"no real speech at {SHARED_SPEECH}: nothing to measure")
    clips = run(Recognizer(options=options, english_wip=args.english_wip), args.garbage_weight)
    print(json.dumps(summary(clips), indent=2))
    if args.failures:
        for c in clips:
            if c.whisper != c.word or c.plain != c.word:
                print(
                    f"{c.band:4} {c.f0:6.1f} Hz {c.word:10} -> whisper {c.whisper!r} "
                    f"({c.whisper_score:.2f}), pocketsphinx {c.plain!r}",
                    file=sys.stderr,
                )
    if args.json:
        args.json.write_text(json.dumps([asdict(c) for c in clips]))


if __name__ == "__main__":
    main()
