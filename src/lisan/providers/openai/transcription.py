"""Transcription on an OpenAI-compatible server (`/audio/transcriptions`): the request form, the
transcript read from the answer with its confidence, and the `auto` mode that tells the two
kinds of server apart.

The design's request asks for token logprobs (`include[]=logprobs`); a Whisper-style server
(OpenAI's whisper-1, faster-whisper-server) ignores it, and is asked for `verbose_json` instead
(LISAN_OPENAI_TRANSCRIBE_CONFIDENCE), with `timestamp_granularities[]` segment and word: its
words' probabilities give the confidence where it scores them (else its segments), and it
reports the language it heard and how likely there was no speech (`transcript_from`). Those
scores are read, and the confidence they give computed, in `providers.openai.segments`.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from typing import Any

from lisan.core.locale import Locale
from lisan.core.settings import TranscribeConfidence
from lisan.providers.base import ProviderBadAnswer, Transcript
from lisan.providers.openai.segments import (
    segment_confidence,
    segments_from,
    weighted_mean,
    word_confidence,
    words_from,
)

# The design's request, and a Whisper-style server's: its `verbose_json` carries per-segment
# scores and the language heard, never token logprobs.
_LOGPROBS_FORM = {"response_format": "json", "include[]": "logprobs"}
_SEGMENTS_FORM: dict[str, str | tuple[str, ...]] = {
    "response_format": "verbose_json",
    "timestamp_granularities[]": ("segment", "word"),
}


def transcription_form(
    model: str, language: Locale, vocabulary: Sequence[str], *, segments: bool
) -> dict[str, str | tuple[str, ...]]:
    """The form fields sent with the audio. Only the vocabulary terms go with it (the prompt):
    the screen and the apps are not the transcriber's business."""
    form: dict[str, str | tuple[str, ...]] = {
        "model": model,
        "language": language.language,
        **(_SEGMENTS_FORM if segments else _LOGPROBS_FORM),
    }
    if vocabulary:
        form["prompt"] = ", ".join(vocabulary)
    return form


class ConfidenceSource:
    """Where this endpoint's confidence comes from (`TranscribeConfidence`).

    `logprobs` (the default, the design's request) and `segments` never change. `auto` is an
    opt-in for an endpoint whose kind is unknown: an answer with text but neither logprobs nor
    segments is asked again, that recording only, for `verbose_json`; only after
    `AUTO_SWITCH_AFTER` such answers in a row that `verbose_json` then served does every
    recording ask for segments first (a proxy that once drops the field, or one hiccup, never
    switches a process); a server that then refuses `verbose_json` (a 4xx) switches it back.
    So one request's wire format depends on earlier traffic only in `auto`."""

    def __init__(self, mode: TranscribeConfidence) -> None:
        self.asks_for_segments = mode is TranscribeConfidence.SEGMENTS
        self._detects = mode is TranscribeConfidence.AUTO
        self._served_in_a_row = 0

    def asks_again(self, answer: Any, *, asked_segments: bool) -> bool:
        """Whether to ask for this recording again, with segments: in `auto`, when `answer`
        was asked without them and gives no confidence."""
        if asked_segments or not self._detects:
            return False
        if not gives_no_confidence(answer):
            self._served_in_a_row = 0  # the design's request is served: stay with it
            return False
        return True

    def served_by_segments(self, answer: Any) -> None:
        """`answer` to a second ask, with segments: one more in a row, or none."""
        self._served_in_a_row = 0 if gives_no_confidence(answer) else self._served_in_a_row + 1
        if self._served_in_a_row >= AUTO_SWITCH_AFTER:
            self.asks_for_segments = True

    def refused_segments(self) -> bool:
        """In `auto`, a 4xx to a `verbose_json` request: back to the design's request (the
        caller asks this recording again with it). False in the fixed modes."""
        if not (self._detects and self.asks_for_segments):
            return False
        self.asks_for_segments, self._served_in_a_row = False, 0
        return True


# How many answers in a row `verbose_json` must serve before `auto` asks for it first.
AUTO_SWITCH_AFTER = 3


def transcript_from(answer: Any) -> Transcript:
    """The transcript and whatever the server says of it: confidence from token logprobs when
    it gives them, else from its words' probabilities (`word_confidence`), else from its
    segments (`segment_confidence`)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
        raise ProviderBadAnswer("transcribe: the answer has no text")
    segments = segments_from(answer.get("segments"))
    confidence = confidence_from(answer.get("logprobs"))
    if confidence is None:
        confidence = word_confidence(words_from(answer))
    if confidence is None:
        confidence = segment_confidence(segments)
    return Transcript(
        text=answer["text"],
        confidence=confidence,
        language=language_from(answer.get("language")),
        no_speech_prob=weighted_mean(segments, "no_speech_prob", 0.0, 1.0),
        compression_ratio=max(
            (s.compression_ratio for s in segments if s.compression_ratio is not None),
            default=None,
        ),
    )


def gives_no_confidence(answer: Any) -> bool:
    """A transcript (some text) with neither logprobs nor segments: the server ignored
    `include[]=logprobs`, as Whisper-style servers do."""
    if not isinstance(answer, dict):
        return False
    text = answer.get("text")
    return (
        isinstance(text, str)
        and bool(text.strip())
        and not answer.get("logprobs")
        and answer.get("segments") is None
    )


# OpenAI's whisper-1 names the language ("english"); faster-whisper-server gives its code; a
# proxy may give a locale tag ("en-US", "am_ET") or a three-letter code ("eng", "amh").
_LANGUAGE_NAMES = {"english": "en", "amharic": "am", "eng": "en", "amh": "am"}
MAX_LANGUAGE_CHARS = 32


def language_from(raw: Any) -> str | None:
    """The language the server heard, as an ISO 639-1 code when it is one of ours."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise ProviderBadAnswer("transcribe: language is not a string")
    language = raw.strip().lower()[:MAX_LANGUAGE_CHARS]
    primary = language.replace("_", "-").split("-")[0]  # "en-us" and "am_et" by their language
    return _LANGUAGE_NAMES.get(primary, primary) or None


LOGPROB_FLOOR = -1000.0


def confidence_from(logprobs: Any) -> float | None:
    """exp(mean logprob) of a non-empty list; no score without one."""
    if logprobs is None or logprobs == []:
        return None
    if not isinstance(logprobs, list):
        raise ProviderBadAnswer("transcribe: logprobs is not a list")
    # A log probability is at most 0 (clamp a provider's rounding), and below LOGPROB_FLOOR the
    # probability is 0 anyway: clamped there, no sum can overflow (-1e308 twice did: a 500).
    values = [min(0.0, max(LOGPROB_FLOOR, _logprob(item))) for item in logprobs]
    return math.exp(statistics.fmean(values))


def _logprob(item: Any) -> float:
    value = item.get("logprob") if isinstance(item, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ProviderBadAnswer("transcribe: a logprob is not a number")
    return float(value)
