"""Accuracy of the offline provider (LISAN_PROVIDER=local) on speech made at run time.

    .venv/bin/python -m bench.offline [--quick] [--json FILE]

Speaks every case of `bench/accuracy/cases.py` with espeak-ng (English at two voices and two
rates, Amharic at two rates), converts it with sox to 16 kHz mono 16-bit PCM padded to 2 s,
and runs each through what POST /v1/commands runs: the speech gate, the local transcriber and
the confidence gate at LISAN_CONFIDENCE_THRESHOLD's default, the local planner, and the safety
rules. Then the same on the real voices of ../shared/speech/ (words that are no command, and
background noise), and, given `--amharic-speech DIR`, real Amharic read speech (16 kHz WAV files,
e.g. ALFFA train-split clips; none is shipped) that is no command. `--language` runs one
language only. Reports correct plans, exact transcripts, out-of-grammar speech REPROMPTed,
in-grammar commands wrongly refused, no_speech on silence and noise, and CPU per command.

`--calibrate` also fits the confidence model (`lisan.providers.local.confidence`) on what the
decodes measured, per language (commands against out-of-grammar sentences), reports how it does
on sentences it was not fitted on (two folds, split by sentence), and prints the weights.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import wave
from collections import Counter
from collections.abc import Iterable
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np

from bench.accuracy.cases import (
    AMHARIC,
    DICTATION_AMHARIC,
    DICTATION_ENGLISH,
    ENGLISH,
    GRANTED,
    OUT_OF_GRAMMAR_AMHARIC,
    OUT_OF_GRAMMAR_AMHARIC_HELD_OUT,
    OUT_OF_GRAMMAR_ENGLISH,
    SCREENS,
    VOCABULARY,
    Case,
    Step,
)
from bench.accuracy.confidence_fit import calibrate
from bench.accuracy.decoding import Decoding, add_decoder_settings
from bench.accuracy.gate import calibrate_gate
from bench.accuracy.outcomes import Answer, Outcome, Report
from bench.accuracy.route import planned
from bench.accuracy.speech import SAMPLE_RATE, noises, speak
from bench.kit.figures import pct
from lisan.commands.audio import has_speech, is_loud
from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import Expected, Screen
from lisan.providers.local.confidence import Evidence
from lisan.providers.local.provider import request_for, transcript_of

ENGLISH_VOICES = [("en-us", 140), ("en-us", 175), ("en-us+f3", 140), ("en-us+f3", 175)]
AMHARIC_VOICES = [("am", 130), ("am", 160)]
SHARED_SPEECH = Path(__file__).resolve().parents[2] / "shared" / "speech"


def run_one(
    pcm: bytes,
    language: Locale,
    screen_key: str,
    threshold: float,
    decoding: Decoding,
) -> Answer:
    """What the command route would answer, and the CPU it took."""
    screen = SCREENS[screen_key]
    granted = screen.package in GRANTED
    seen = Screen(screen.package, screen.tree, granted=granted)  # the offline provider sees it
    started = time.process_time()

    evidence: Evidence | None = None

    def answer(status: str, reason: str | None, text: str = "", steps: list[Step] | None = None,
               confidence: float | None = None) -> Answer:  # fmt: skip
        cpu = (time.process_time() - started) * 1000
        return Answer(status, reason, text, steps or [], cpu, confidence, evidence, decoding.last)

    if not has_speech(pcm):
        return answer("REPROMPT", "no_speech")
    request = request_for(Expected(VOCABULARY, seen, GRANTED), language, threshold)
    heard = decoding.hear(pcm, request)
    evidence = heard.evidence
    transcript = transcript_of(heard)
    text, confidence = transcript.text, transcript.confidence
    status, reason, steps = planned(text, confidence, language, screen_key, threshold)
    return answer(status, reason, text, steps, confidence)


def bench(
    quick: bool,
    shared: bool,
    languages: set[str] | None = None,
    amharic_speech: Path | None = None,
    decoding: Decoding | None = None,
) -> Report:
    decoding = decoding or Decoding()
    settings = Settings()
    report = Report()
    threshold = settings.confidence_threshold
    plans: list[tuple[str, Locale, Iterable[Case], list[tuple[str, int]]]] = [
        ("en-US", Locale.EN_US, ENGLISH, ENGLISH_VOICES[:2] if quick else ENGLISH_VOICES),
        ("am-ET", Locale.AM_ET, AMHARIC, AMHARIC_VOICES[:1] if quick else AMHARIC_VOICES),
    ]
    plans = [plan for plan in plans if languages is None or plan[0] in languages]
    for language, locale, cases, voices in plans:
        for case in cases:
            for voice, rate in voices:
                pcm = speak(case.said, voice, rate)
                got = run_one(pcm, locale, case.screen, threshold, decoding)
                planned = got.status in {"ACCEPTED", "CONFIRMATION_REQUIRED"}
                correct = planned and tuple(got.steps) == case.steps
                report.outcomes.append(_outcome("command", language, case.said, voice, rate, got,
                                                correct, case.screen, case.steps))  # fmt: skip
    for sentence in DICTATION_ENGLISH if languages is None or "en-US" in languages else ():
        typed = (("TEXT_INPUT", "n3"),) + ((("TAP", "n4"),) if sentence.startswith("send") else ())
        for voice, rate in plans[0][3]:
            got = run_one(speak(sentence, voice, rate), Locale.EN_US, "chat", threshold, decoding)
            right = got.status == "CONFIRMATION_REQUIRED" and tuple(got.steps) == typed
            report.outcomes.append(
                _outcome("dictation", "en-US", sentence, voice, rate, got, right)
            )
    for sentence in DICTATION_AMHARIC if languages is None or "am-ET" in languages else ():
        for voice, rate in AMHARIC_VOICES[:1] if quick else AMHARIC_VOICES:
            got = run_one(
                speak(sentence, voice, rate), Locale.AM_ET, "chat_am", threshold, decoding
            )
            declined = (got.status, got.reason) == ("REJECTED", "dictation_unsupported")
            report.outcomes.append(
                _outcome("dictation", "am-ET", sentence, voice, rate, got, declined)
            )
    voiced = {language: voices for language, _, _, voices in plans}
    out_of_grammar = [
        ("out_of_grammar", "en-US", Locale.EN_US, OUT_OF_GRAMMAR_ENGLISH),
        ("out_of_grammar", "am-ET", Locale.AM_ET, OUT_OF_GRAMMAR_AMHARIC),
        ("held_out", "am-ET", Locale.AM_ET, OUT_OF_GRAMMAR_AMHARIC_HELD_OUT),
    ]
    for kind, language, locale, sentences in out_of_grammar:
        voices = voiced.get(language, [])
        screens = ["chat", "settings"] if locale is Locale.EN_US else ["chat_am", "settings_am"]
        for index, sentence in enumerate(sentences):
            for voice, rate in voices:
                pcm = speak(sentence, voice, rate)
                got = run_one(pcm, locale, screens[index % 2], threshold, decoding)
                report.outcomes.append(
                    _outcome(kind, language, sentence, voice, rate, got, False, screens[index % 2])
                )
    for name, pcm in noises():
        for language, locale in (("en-US", Locale.EN_US), ("am-ET", Locale.AM_ET)):
            if language not in voiced:
                continue
            screen = "chat" if locale is Locale.EN_US else "chat_am"
            got = run_one(pcm, locale, screen, threshold, decoding)
            outcome = _outcome("silence", language, name, "-", 0, got, False)
            report.outcomes.append(replace(outcome, loud=is_loud(pcm)))
    if shared and SHARED_SPEECH.is_dir() and "en-US" in voiced:
        _shared_speech(report, threshold, decoding)
    if amharic_speech is not None:
        _amharic_speech(report, threshold, amharic_speech, decoding)
    return report


def _amharic_speech(report: Report, threshold: float, folder: Path, decoding: Decoding) -> None:
    """Real Amharic read speech that is no command: every 16 kHz mono WAV in `folder`, whole (up
    to the route's 15 s), on the two Amharic screens in turn. ALFFA's names hold the speaker
    (tr_<n>_<speaker><utterance>: tr097 of tr_10000_tr097082)."""
    clips = sorted(folder.glob("*.wav"))
    if not clips:
        print(f"no Amharic speech: {folder} holds no .wav files", file=sys.stderr)
        return
    for index, clip in enumerate(clips):
        with wave.open(str(clip)) as recording:
            if (recording.getframerate(), recording.getnchannels()) != (SAMPLE_RATE, 1):
                continue
            pcm = recording.readframes(recording.getnframes())
        if len(pcm) > 15 * SAMPLE_RATE * 2:
            continue
        screen = ("chat_am", "settings_am")[index % 2]
        got = run_one(pcm, Locale.AM_ET, screen, threshold, decoding)
        speaker = clip.stem.rsplit("_", 1)[-1][:5]
        report.outcomes.append(
            _outcome("real_amharic", "am-ET", clip.stem, speaker, 0, got, False, screen)
        )


def _shared_speech(report: Report, threshold: float, decoding: Decoding) -> None:
    """Real people (Google Speech Commands): words that are no command, and background noise."""
    manifest = (SHARED_SPEECH / "manifest.tsv").read_text().splitlines()[1:]
    for line in manifest:
        file, word, kind = line.split("\t")
        pcm = (SHARED_SPEECH / file).read_bytes()  # as recorded: zeros would fake a floor
        got = run_one(pcm, Locale.EN_US, "chat", threshold, decoding)
        label = "real_background" if kind == "background" else "real_word"
        speaker = Path(file).stem.split("_")[1]  # <word>_<speaker>_nohash_<n>
        outcome = _outcome(label, "en-US", word, f"human-{speaker}", 0, got, False, "chat")
        report.outcomes.append(replace(outcome, loud=is_loud(pcm)))


def _outcome(
    kind: str, language: str, said: str, voice: str, rate: int, got: Answer, correct: bool,
    screen: str = "", expected: tuple[Step, ...] | None = None,
) -> Outcome:  # fmt: skip
    features = got.evidence.features() if got.evidence else None
    return Outcome(kind, language, said, f"{voice}@{rate}", got.status, got.reason,
                   got.transcript, correct, got.cpu_ms, got.confidence, features,
                   replay=got.replay, screen=screen, expected=expected)  # fmt: skip


def summary(report: Report) -> dict[str, object]:
    lines: dict[str, object] = {}
    for language in ("en-US", "am-ET"):
        correct, total = report.share("command", language, "correct")
        exact, _ = report.share("command", language, "exact")
        refused, _ = report.share("command", language, "refused")
        oog, oog_total = report.share("out_of_grammar", language, "refused")
        silent, silent_total = report.share("silence", language, "no_speech")
        quiet = [o for o in report.outcomes if o.kind == "silence" and o.language == language]
        lines[language] = {
            "commands": total,
            "distinct": len(
                {o.said for o in report.outcomes if o.kind == "command" and o.language == language}
            ),
            "correct_plans": pct(correct, total),
            "exact_transcripts": pct(exact, total),
            "in_grammar_refused": pct(refused, total),
            "out_of_grammar_reprompted": pct(oog, oog_total),
            "silence_and_noise_no_speech": pct(silent, silent_total),
            "silence_and_noise_no_speech_energy_only": pct(
                sum(not o.loud for o in quiet), silent_total
            ),
        }
    dictated = [o for o in report.outcomes if o.kind == "dictation" and o.language == "en-US"]
    if dictated:
        lines["en-US_dictation"] = {
            "read_back_as_typing": pct(sum(o.correct for o in dictated), len(dictated)),
            "words_exact": pct(sum(o.transcript == o.said for o in dictated), len(dictated)),
        }
    declined = [o for o in report.outcomes if o.kind == "dictation" and o.language == "am-ET"]
    if declined:
        lines["am-ET_dictation"] = {
            "declined_as_unsupported": pct(sum(o.correct for o in declined), len(declined)),
        }
    for language in ("en-US", "am-ET"):
        commands = [o for o in report.outcomes if o.kind == "command" and o.language == language]
        by_voice: dict[str, list[Outcome]] = {}
        for o in commands:
            by_voice.setdefault(o.voice, []).append(o)
        if by_voice:
            lines[f"{language}_by_voice"] = {
                voice: pct(sum(o.correct for o in said), len(said))
                for voice, said in sorted(by_voice.items())
            }
    cpu = [o.cpu_ms for o in report.outcomes if o.kind == "command"]
    lines["cpu_ms_per_2s_command"] = {
        "median": round(statistics.median(cpu), 1),
        "p95": round(float(np.percentile(cpu, 95)), 1),
    }
    for kind in ("out_of_grammar", "held_out", "real_amharic"):
        spoken = [o for o in report.outcomes if o.kind == kind and o.language == "am-ET"]
        if spoken:
            lines[f"am-ET_{kind}"] = {
                "refused": pct(
                    sum(o.status in {"REPROMPT", "REJECTED"} for o in spoken), len(spoken)
                ),
                "accepted": pct(sum(o.status == "ACCEPTED" for o in spoken), len(spoken)),
                "confirmation_required": pct(
                    sum(o.status == "CONFIRMATION_REQUIRED" for o in spoken), len(spoken)
                ),
            }
    words = [o for o in report.outcomes if o.kind == "real_word"]
    background = [o for o in report.outcomes if o.kind == "real_background"]
    if words:
        lines["real_voices"] = {
            "words_refused": pct(
                sum(o.status != "ACCEPTED" and o.status != "CONFIRMATION_REQUIRED" for o in words),
                len(words),
            ),
            "words_no_speech": pct(sum(o.reason == "no_speech" for o in words), len(words)),
            "words_no_speech_energy_only": pct(sum(not o.loud for o in words), len(words)),
            "background_no_speech": pct(
                sum(o.reason == "no_speech" for o in background), len(background)
            ),
            "background_no_speech_energy_only": pct(
                sum(not o.loud for o in background), len(background)
            ),
        }
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer voices: a first look")
    parser.add_argument("--no-shared", action="store_true", help="skip ../shared/speech")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    parser.add_argument("--failures", action="store_true", help="list every wrong outcome")
    parser.add_argument("--calibrate", action="store_true", help="fit the confidence model")
    parser.add_argument("--language", choices=["en-US", "am-ET"], help="one language only")
    parser.add_argument("--amharic-speech", type=Path, help="real Amharic WAVs (no commands)")
    parser.add_argument(
        "--option", action="append", default=[], metavar="NAME=VALUE", help="a decoder setting"
    )
    add_decoder_settings(parser)
    args = parser.parse_args()
    if args.amharic_speech is not None and not args.amharic_speech.is_dir():
        print(f"no Amharic speech: {args.amharic_speech} is absent", file=sys.stderr)
        args.amharic_speech = None
    languages = {args.language} if args.language else None
    decoding = Decoding(
        args.english_wip,
        args.garbage_weight,
        options=dict(option.split("=", 1) for option in args.option),
    )
    report = bench(args.quick, not args.no_shared, languages, args.amharic_speech, decoding)
    print(json.dumps(summary(report), indent=2, ensure_ascii=False))
    if args.calibrate:
        print(json.dumps({"calibration": calibrate(report)}, indent=2, ensure_ascii=False))
        threshold = Settings().confidence_threshold
        gate = calibrate_gate(report.outcomes, planned, threshold)
        print(json.dumps({"second_ear": gate}, indent=2, ensure_ascii=False))
    if args.failures:
        for o in report.outcomes:
            wrong = (
                (o.kind == "command" and not o.correct)
                or (o.kind in {"out_of_grammar", "held_out"} and o.status != "REPROMPT")
                or (o.kind == "real_amharic" and o.status not in {"REPROMPT", "REJECTED"})
                or (o.kind in {"silence", "real_background"} and o.reason != "no_speech")
                or (o.kind == "real_word" and o.status in {"ACCEPTED", "CONFIRMATION_REQUIRED"})
            )
            if wrong:
                print(f"{o.kind:15} {o.language} {o.voice:12} {o.said!r:34} -> {o.status} "
                      f"{o.reason or ''} {o.transcript!r}", file=sys.stderr)  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in report.outcomes], ensure_ascii=False))
    counts = Counter(o.status for o in report.outcomes)
    print(f"statuses: {dict(counts)}", file=sys.stderr)


if __name__ == "__main__":
    main()
