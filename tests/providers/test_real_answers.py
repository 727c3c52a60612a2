"""A real server's answers, replayed: faster-whisper-server 0.0.3 with Whisper tiny.en, recorded
by `python -m bench.interop --record` (fixtures/faster_whisper_server/, the server's bodies and
statuses as they came; never the audio). The suite holds the same shapes as `make interop`
without its install: json without logprobs, verbose_json, and the server's errors.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import Expected, ProviderRefusedRequest
from lisan.providers.openai.segments import segment_confidence, segments_from
from lisan.providers.openai.transcription import transcript_from
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import app_with, command, command_body, plan, step
from tests.fixtures.devices import ready_device
from tests.fixtures.provider import PCM, MakeProvider

FIXTURES = Path(__file__).parent / "fixtures" / "faster_whisper_server"
NOTHING_EXPECTED = Expected([], None, [])


def fixture(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text())
    return loaded


def replay(name: str) -> Answer:
    recorded = fixture(name)
    return Answer.json(recorded["body"], recorded["status"])


def test_the_fixtures_are_the_servers_answers_and_hold_no_audio() -> None:
    names = sorted(path.stem for path in FIXTURES.glob("*.json"))
    assert len(names) == 11
    for name in names:
        recorded = fixture(name)
        assert recorded["server"].startswith("faster-whisper-server 0.0.3")
        assert "file" not in recorded["request"]
        assert len(json.dumps(recorded)) < 4_000  # the answers, never a recording
        asked = recorded["request"]["response_format"]
        if recorded["status"] == 200 and asked == "verbose_json":
            assert set(recorded["body"]) == {"task", "language", "duration", "text", "segments"}
        elif recorded["status"] == 200:
            assert set(recorded["body"]) == {"text"}  # `include[]=logprobs` silently ignored


@pytest.mark.parametrize(
    "name", [path.stem for path in sorted(FIXTURES.glob("verbose_*.json")) if path.is_file()]
)
def test_every_verbose_answer_gives_its_language_and_scores(name: str) -> None:
    body = fixture(name)["body"]
    transcript = transcript_from(body)
    assert transcript.text == body["text"]
    assert transcript.language == "en"  # tiny.en hears English, whatever it is asked
    if body["segments"]:
        assert transcript.confidence is not None
        assert 0 < transcript.confidence < 1
        assert transcript.confidence == segment_confidence(segments_from(body["segments"]))
        assert transcript.no_speech_prob is not None
        assert transcript.compression_ratio is not None
    else:
        assert transcript.confidence is None


async def test_auto_detects_the_real_server_and_asks_it_for_segments(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.then(replay("json_open_telegram"), replay("verbose_open_telegram"))
    provider = make_provider(openai_transcribe_confidence="auto")
    transcript = await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    assert [r.field("response_format") for r in fake_openai.transcriptions.requests] == [
        "json",
        "verbose_json",
    ]
    expected = transcript_from(fixture("verbose_open_telegram")["body"])
    assert transcript == expected
    assert transcript.confidence is not None


@pytest.mark.parametrize(
    ("name", "excerpt"),
    [
        ("error_unknown_model", "unknown model: whisper-1"),
        ("error_unsupported_format", "Unsupported response_format: text"),
    ],
)
async def test_the_servers_errors_reach_the_log_as_its_own_words(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    name: str,
    excerpt: str,
) -> None:
    fake_openai.transcriptions.then(replay(name))
    with (
        caplog.at_level(logging.WARNING, logger="lisan.providers.openai"),
        pytest.raises(ProviderRefusedRequest) as raised,
    ):
        await make_provider().transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    assert raised.value.kind == "config_error"  # the request refused: no outage
    record = next(r for r in caplog.records if r.getMessage() == "provider call failed")
    assert (record.status, record.error_excerpt) == (400, excerpt)  # type: ignore[attr-defined]


# --- through the route: what the phone is answered -----------------------------------------


async def run(
    settings_factory: Callable[..., Settings], fake: FakeOpenAI, answer: Answer, language: str
) -> tuple[int, dict[str, Any]]:
    """One command whose transcription the fake answers with `answer`: its status and body."""
    fake.transcriptions.then(answer)
    async with app_with(
        settings_factory, fake.base_url, openai_transcribe_confidence="segments"
    ) as client:
        device = await ready_device(client)
        response = await command(client, device, command_body(language=language))
    return response.status_code, response.json()


@pytest.mark.parametrize(
    ("name", "language", "reason"),
    [
        # Amharic asked of an English-only model: it answers English ("Lock" for "ላክ").
        ("verbose_amharic_as_am", "am-ET", "language_mismatch"),
        # Reversed speech: the server hears a sentence, and doubts it.
        ("verbose_reversed", "en-US", "low_confidence"),
        # Background noise: the server drops it all itself.
        ("verbose_background", "en-US", "empty_transcript"),
        # The server's own loop ("Abebe, Abebe, Abebe, ..."), had it been asked for English.
        ("verbose_loop", "en-US", "repetitive_transcript"),
    ],
)
async def test_a_doubtful_real_answer_is_reprompted_and_never_planned(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    name: str,
    language: str,
    reason: str,
) -> None:
    status, body = await run(settings_factory, fake_openai, replay(name), language)
    assert status == 200
    assert (body["status"], body["reprompt_reason"]) == ("REPROMPT", reason)
    assert "action_plan" not in body
    assert fake_openai.completions.calls == 0


@pytest.mark.parametrize(
    "name",
    [
        "verbose_real_word_up",
        # The run's highest no_speech_prob (0.69) was a real "up." the server was sure of: as in
        # Whisper's own rule, speech.
        "verbose_most_no_speech",
    ],
)
async def test_a_confident_real_answer_in_the_language_asked_is_planned(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, name: str
) -> None:
    fake_openai.completions.then(Answer.plan(plan(step("SCROLL", None, "up"))))  # "up."
    status, body = await run(settings_factory, fake_openai, replay(name), "en-US")
    assert status == 200
    assert body["status"] == "ACCEPTED"
    assert fake_openai.completions.calls == 1
    heard = fixture(name)["body"]["text"]
    assert heard in fake_openai.completions.last.messages[1]["content"]


async def test_a_high_no_speech_prob_the_server_was_unsure_of_is_no_speech(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """The same real answer, its avg_logprob lowered to -1.2: Whisper would drop it as silence."""
    recorded = fixture("verbose_most_no_speech")["body"]
    assert recorded["segments"][0]["no_speech_prob"] >= 0.6
    unsure = {**recorded, "segments": [{**recorded["segments"][0], "avg_logprob": -1.2}]}
    status, body = await run(settings_factory, fake_openai, Answer.json(unsure), "en-US")
    assert status == 200
    assert (body["status"], body["reprompt_reason"]) == ("REPROMPT", "no_speech")
    assert fake_openai.completions.calls == 0
