"""Confidence from whatever the server gives (LISAN_OPENAI_TRANSCRIBE_CONFIDENCE): token logprobs,
or a Whisper-style server's `verbose_json` words (their probabilities) or segments; `logprobs`,
the design's request, by default; and `auto`, an opt-in that asks a recording again for
segments when its answer has no score, and asks for them first only once several answers in a
row showed the server needs it.
The server's own answers are replayed in test_real_answers.py; here the rules, on answers made
to the point."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest

from lisan.commands.hearing import doubt
from lisan.core.locale import Locale
from lisan.providers.base import Expected, ProviderBadAnswer, Transcript
from lisan.providers.openai.segments import (
    CLIP_S,
    SEGMENT_OFFSET,
    SEGMENT_SLOPE,
    WORD_OFFSET,
    WORD_SLOPE,
    segment_confidence,
    segments_from,
)
from lisan.providers.openai.transcription import language_from, transcript_from
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.adversarial import least_cpu_ms
from tests.fixtures.provider import PCM, MakeProvider

NOTHING_EXPECTED = Expected([], None, [])


def segment(
    avg_logprob: float, start: float = 0.0, end: float = 1.0, **more: Any
) -> dict[str, Any]:
    return {"id": 0, "start": start, "end": end, "text": " x", "avg_logprob": avg_logprob, **more}


def verbose(text: str, *segments: dict[str, Any], language: str = "en") -> dict[str, Any]:
    return {"task": "transcribe", "language": language, "duration": 1.0, "text": text,
            "segments": list(segments)}  # fmt: skip


def platt(mean_logprob: float) -> float:
    return 1 / (1 + math.exp(-(SEGMENT_SLOPE * mean_logprob + SEGMENT_OFFSET)))


def test_segment_confidence_is_the_documented_platt_scaling_of_the_weighted_mean() -> None:
    # 1.5 s at -0.2 and 0.5 s at -1.0: the mean, weighted by duration, is -0.4.
    answer = verbose(
        "open telegram",
        segment(-0.2, 0.0, 1.5, no_speech_prob=0.1, compression_ratio=0.8),
        segment(-1.0, 1.5, 2.0, no_speech_prob=0.5, compression_ratio=2.6),
    )
    transcript = transcript_from(answer)
    assert transcript.confidence == pytest.approx(platt(-0.4))
    assert transcript.no_speech_prob == pytest.approx(0.2)
    assert transcript.compression_ratio == 2.6  # the worst segment: one loop is enough
    assert transcript.language == "en"


def test_the_mapping_rises_with_the_log_probability_and_stays_in_0_1() -> None:
    found = [segment_confidence(segments_from([segment(lp)])) for lp in (-5, -1, -0.5, -0.1, 0)]
    scores = [s for s in found if s is not None]
    assert len(scores) == 5
    assert all(0 <= s <= 1 for s in scores)
    assert scores == sorted(scores)
    assert len(set(scores)) == len(scores)
    assert segment_confidence(segments_from([segment(-1e308)])) == pytest.approx(0.0)


def test_logprobs_win_over_segments_when_a_server_gives_both() -> None:
    answer = {**verbose("go back", segment(-3.0)), "logprobs": [{"token": "go", "logprob": 0.0}]}
    assert transcript_from(answer).confidence == 1.0


@pytest.mark.parametrize(
    "answer",
    [
        verbose("go back"),  # no segments at all
        verbose("go back", {"id": 0, "start": 0, "end": 1, "text": "go back"}),  # no scores
        {"text": "go back"},
    ],
)
def test_no_score_gives_no_confidence(answer: dict[str, Any]) -> None:
    assert transcript_from(answer).confidence is None


@pytest.mark.parametrize(
    "segments",
    ["not a list", [1], [{**segment(-0.1), "avg_logprob": "high"}],
     [segment(-0.1, no_speech_prob=True)], [{**segment(-0.1), "start": "0"}],
     [segment(-0.1)] * 513],
)  # fmt: skip
def test_a_malformed_segment_is_a_bad_answer(segments: Any) -> None:
    with pytest.raises(ProviderBadAnswer):
        transcript_from({"text": "go back", "segments": segments})


@pytest.mark.parametrize(
    ("raw", "code"),
    [("en", "en"), ("english", "en"), (" Amharic ", "am"), ("am", "am"), ("fr", "fr"), (None, None),
     ("", None), ("x" * 100, "x" * 32), ("en-US", "en"), ("am_ET", "am"), ("eng", "en"),
     ("AMH", "am"), ("EN", "en")],
)  # fmt: skip
def test_the_language_heard_is_an_iso_code_when_it_is_ours(raw: Any, code: str | None) -> None:
    assert language_from(raw) == code


def test_a_language_that_is_no_string_is_a_bad_answer() -> None:
    with pytest.raises(ProviderBadAnswer):
        transcript_from({"text": "go back", "language": 7})


async def test_segments_mode_asks_for_verbose_json_and_no_logprobs(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.then(Answer.json(verbose("Go back.", segment(-0.1))))
    provider = make_provider(openai_transcribe_confidence="segments")
    transcript = await provider.transcribe(PCM, Locale.AM_ET, NOTHING_EXPECTED)
    sent = fake_openai.transcriptions.last
    assert sent.field("response_format") == "verbose_json"
    assert sent.fields["timestamp_granularities[]"] == ["segment", "word"]
    assert "include[]" not in sent.fields
    assert sent.field("language") == "am"
    assert transcript == Transcript(
        "Go back.", platt(-0.1), language="en", no_speech_prob=None, compression_ratio=None
    )


async def test_logprobs_mode_never_asks_again(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.then(Answer.json({"text": "go back"}))
    provider = make_provider(openai_transcribe_confidence="logprobs")
    transcript = await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    assert transcript.confidence is None
    assert fake_openai.transcriptions.calls == 1


def test_the_designs_request_is_the_default(settings_factory: Any) -> None:
    """`logprobs` is the default: the design's wire format, whatever earlier traffic did."""
    from lisan.core.settings import Settings, TranscribeConfidence

    assert Settings().openai_transcribe_confidence is TranscribeConfidence.LOGPROBS


async def test_auto_asks_only_the_answer_in_hand_again_until_several_in_a_row_need_it(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """In `auto`, an answer without a score is asked again, that recording only, for segments;
    only after AUTO_SWITCH_AFTER such answers in a row does every recording ask for them first."""
    from lisan.providers.openai.transcription import AUTO_SWITCH_AFTER

    for _ in range(AUTO_SWITCH_AFTER):
        fake_openai.transcriptions.then(
            Answer.json({"text": " Go back."}),  # the design's request: logprobs ignored
            Answer.json(verbose(" Go back.", segment(-0.2))),  # the same recording, again
        )
    fake_openai.transcriptions.then(Answer.json(verbose(" Go home.", segment(-0.3))))
    provider = make_provider(openai_transcribe_confidence="auto")
    first = await provider.transcribe(PCM, Locale.EN_US, Expected(["Yonas"], None, []))
    first_request, again = fake_openai.transcriptions.requests
    assert first_request.field("response_format") == "json"
    assert first_request.field("include[]") == "logprobs"
    assert again.field("response_format") == "verbose_json"
    assert again.file == first_request.file
    assert again.field("prompt") == "Yonas"
    assert first.confidence == pytest.approx(platt(-0.2))
    for _ in range(AUTO_SWITCH_AFTER - 1):
        await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    formats = [r.field("response_format") for r in fake_openai.transcriptions.requests]
    assert formats == ["json", "verbose_json"] * AUTO_SWITCH_AFTER

    switched = await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    assert fake_openai.transcriptions.last.field("response_format") == "verbose_json"
    assert fake_openai.transcriptions.calls == 2 * AUTO_SWITCH_AFTER + 1
    assert switched.confidence == pytest.approx(platt(-0.3))


async def test_one_answer_without_logprobs_never_switches_auto(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """A proxy that once drops the field, then scores again, leaves `auto` on the design's
    request: the count of answers in a row starts again."""
    scored = {"text": "go", "logprobs": [{"token": "go", "logprob": -0.1}]}
    fake_openai.transcriptions.then(
        Answer.json({"text": "go"}),
        Answer.json(verbose("go", segment(-0.2))),
        Answer.json(scored),
        Answer.json(scored),
    )
    provider = make_provider(openai_transcribe_confidence="auto")
    for _ in range(3):
        await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    formats = [r.field("response_format") for r in fake_openai.transcriptions.requests]
    assert formats == ["json", "verbose_json", "json", "json"]


async def test_auto_switches_back_when_the_server_refuses_verbose_json(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """A server that refuses `verbose_json` (a 4xx) after `auto` switched to it is asked the same
    recording with the design's request, and `auto` stays with that request."""
    from lisan.providers.openai.transcription import AUTO_SWITCH_AFTER

    for _ in range(AUTO_SWITCH_AFTER):
        fake_openai.transcriptions.then(
            Answer.json({"text": "go"}), Answer.json(verbose("go", segment(-0.2)))
        )
    scored = {"text": "go", "logprobs": [{"token": "go", "logprob": -0.1}]}
    fake_openai.transcriptions.then(
        Answer.json({"detail": "Unsupported response_format: verbose_json"}, 400),
        Answer.json(scored),
        Answer.json(scored),
    )
    provider = make_provider(openai_transcribe_confidence="auto")
    for _ in range(AUTO_SWITCH_AFTER + 2):
        await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    formats = [r.field("response_format") for r in fake_openai.transcriptions.requests]
    assert formats[2 * AUTO_SWITCH_AFTER :] == ["verbose_json", "json", "json"]


@pytest.mark.parametrize(
    ("start", "end"),
    [(0.0, 1e308), (-1e308, 1e308), (1e308, -1e308), (-1e308, -1e307), (0.0, 1e9), (3.0, 2.0)],
    ids=["huge", "huge both ways", "inverted and huge", "all before the clip", "past the clip",
         "inverted"],
)  # fmt: skip
def test_a_poor_score_is_reprompted_whatever_its_segments_times(start: float, end: float) -> None:
    """Segment times are clamped into the clip (0 to CLIP_S) before they weigh: a segment that
    ends before it starts, lies past the clip or at a huge time still has its score read, and
    a poor one is a REPROMPT (`low_confidence`), never dropped as no score."""
    answer = verbose(
        "go back", segment(-3.0, start, end), segment(-3.0, 0.0, 1.0, no_speech_prob=0.1)
    )
    transcript = transcript_from(answer)
    assert transcript.confidence is not None
    assert transcript.confidence < 0.5
    assert transcript.no_speech_prob == pytest.approx(0.1)
    assert doubt(transcript, Locale.EN_US, 0.5) == "low_confidence"


def test_a_segment_past_the_clip_weighs_at_most_the_clip() -> None:
    """A poor segment whose times run far past the clip weighs what the whole clip would, no
    more: beside a confident second of speech, its score still decides, and nothing
    overflows (a score of -1e308 as well)."""
    confident = segment(-0.05, 0.0, 1.0)
    mixed = segment_confidence(segments_from([confident, segment(-3.0, 0.0, 1e308)]))
    weight = CLIP_S  # the poor segment's, clamped; the confident one weighs 1 s
    assert mixed == pytest.approx(platt((-0.05 * 1.0 + -3.0 * weight) / (1.0 + weight)))
    assert segment_confidence(segments_from([segment(-1e308, 0.0, 1e308)])) == pytest.approx(0.0)


def test_inverted_times_weigh_the_least_never_full_confidence() -> None:
    """A segment that ends before it starts weighs the minimum: its score counts, never as 1."""
    answer = verbose("go back", segment(-0.1, 1e308, -1e308), segment(-5.0, 1e308, -1e308))
    confidence = transcript_from(answer).confidence
    assert confidence is not None
    assert confidence < 0.5


@pytest.mark.parametrize(
    "answer",
    [
        {"text": "go back", "logprobs": [{"token": "go", "logprob": -0.1}]},  # logprobs given
        {"text": "  "},  # nothing heard: it says nothing of the server
        verbose("go back", segment(-0.1)),  # segments without being asked: already enough
    ],
)
async def test_auto_keeps_the_designs_request_for_a_server_that_gives_a_score(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, answer: dict[str, Any]
) -> None:
    fake_openai.transcriptions.default = Answer.json(answer)
    provider = make_provider(openai_transcribe_confidence="auto")
    await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    await provider.transcribe(PCM, Locale.EN_US, NOTHING_EXPECTED)
    assert fake_openai.transcriptions.calls == 2
    assert {r.field("response_format") for r in fake_openai.transcriptions.requests} == {"json"}


def test_the_setting_refuses_an_unknown_mode(settings_factory: Any) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        settings_factory(openai_transcribe_confidence="tokens")


# --- words -------------------------------------------------------------------------------------


def word(text: str, probability: float | None) -> dict[str, Any]:
    scored = {"word": text, "start": 0.0, "end": 0.3}
    return scored if probability is None else {**scored, "probability": probability}


def test_one_doubtful_word_that_names_the_target_makes_a_confident_segment_doubtful() -> None:
    """ "send" heard as "settings": a segment the server is sure of (avg_logprob -0.2, 0.93 by
    the segments' scale) whose naming word it doubts (0.15) is below the threshold; the words
    a command is said with ("Tap") do not vouch for it."""
    answer = verbose("Tap settings.", segment(-0.2))
    answer["words"] = [word(" Tap", 0.99), word(" settings.", 0.15)]
    confidence = transcript_from(answer).confidence
    assert confidence == pytest.approx(1 / (1 + math.exp(-(WORD_SLOPE * 0.15 + WORD_OFFSET))))
    assert confidence is not None
    assert confidence < 0.5 < platt(-0.2)


def test_words_inside_segments_count_and_sure_ones_pass() -> None:
    """Servers that nest the words in their segments (faster-whisper's shape) are read too."""
    answer = verbose(
        "Open Telegram.", segment(-0.3, words=[word(" Open", 0.9), word(" Telegram.", 0.97)])
    )
    confidence = transcript_from(answer).confidence
    assert confidence is not None
    assert confidence > 0.9


def test_words_without_probabilities_leave_the_segments_to_judge() -> None:
    """OpenAI's whisper-1 gives word times, no probabilities: its segments give the score."""
    answer = verbose("Go back.", segment(-0.1))
    answer["words"] = [word(" Go", None), word(" back.", None)]
    assert transcript_from(answer).confidence == platt(-0.1)


@pytest.mark.parametrize("words", ["many", [1, 2], [{"word": " x", "probability": "high"}]])
def test_malformed_words_are_a_bad_answer(words: Any) -> None:
    answer = verbose("Go back.", segment(-0.1))
    answer["words"] = words
    with pytest.raises(ProviderBadAnswer):
        transcript_from(answer)


def test_a_scored_word_is_read_up_to_a_words_length_so_the_answer_is_read_in_linear_time() -> None:
    """A transcriber's answer of one endless "word" costs what a word costs; a word is read up
    to MAX_WORD_CHARS, enough for any word with its spacing and punctuation."""
    answer = verbose("Open Telegram.", segment(-0.3))
    answer["words"] = [word(" Open", 0.9), word(" Telegram" + "," * 250_000, 0.2)]

    def prepare(salt: int) -> Callable[[], object]:
        return lambda: transcript_from(answer)

    assert least_cpu_ms(prepare) < 10.0
    assert transcript_from(answer).confidence == pytest.approx(
        1 / (1 + math.exp(-(WORD_SLOPE * 0.2 + WORD_OFFSET)))
    )
