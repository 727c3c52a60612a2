"""Transcription on an OpenAI-compatible server (`/audio/transcriptions`): the request form, the
transcript read from the answer with its confidence, and the `auto` mode that tells the two
kinds of server apart.

The design's request asks for token logprobs (`include[]=logprobs`); a Whisper-style server
(OpenAI's whisper-1, faster-whisper-server) ignores it, and is asked for `verbose_json` instead
(LISAN_OPENAI_TRANSCRIBE_CONFIDENCE), with `timestamp_granularities[]` segment and word: its
words' probabilities give the confidence where it scores them (else its segments), and it
reports the language it heard and how likely there was no speech (`transcript_from`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lisan.core.locale import Locale
from lisan.core.settings import TranscribeConfidence
from lisan.core.text import naming_words
from lisan.providers.base import MAX_DURATION_MS, ProviderBadAnswer, Transcript

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
        no_speech_prob=_weighted_mean(segments, "no_speech_prob", 0.0, 1.0),
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


@dataclass(frozen=True, slots=True)
class Segment:
    """The scores of one `verbose_json` segment (each None when the server leaves it out)."""

    weight: float  # its duration in seconds, MIN_SEGMENT_WEIGHT_S to CLIP_S (`_duration`)
    avg_logprob: float | None
    no_speech_prob: float | None
    compression_ratio: float | None


MIN_SEGMENT_WEIGHT_S = 0.05
CLIP_S = MAX_DURATION_MS / 1000  # the longest recording a command carries
MAX_SEGMENTS = 512


def _objects(raw: Any, limit: int, field: str, each: str) -> list[dict[str, Any]]:
    """An answer's list of at most `limit` objects (none when absent), or a bad answer naming
    what is wrong."""
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > limit:
        raise ProviderBadAnswer(f"transcribe: {field} is not a list")
    if not all(isinstance(item, dict) for item in raw):
        raise ProviderBadAnswer(f"transcribe: {each} is not an object")
    return raw


def segments_from(raw: Any) -> list[Segment]:
    segments = []
    for item in _objects(raw, MAX_SEGMENTS, "segments", "a segment"):
        segments.append(
            Segment(
                weight=_duration(_score(item, "start"), _score(item, "end")),
                avg_logprob=_score(item, "avg_logprob"),
                no_speech_prob=_score(item, "no_speech_prob"),
                compression_ratio=_score(item, "compression_ratio"),
            )
        )
    return segments


def _duration(start: float | None, end: float | None) -> float:
    """A segment's weight: its duration, its times clamped into the clip first. Times before
    the clip, past it, huge or inverted still give a weight between MIN_SEGMENT_WEIGHT_S and
    CLIP_S: the segments' scores are always read (a poor one REPROMPTs), never dropped for a
    weight that overflowed. 1 s when the server gives no times."""
    if start is None or end is None:
        return 1.0
    start, end = (min(CLIP_S, max(0.0, time)) for time in (start, end))
    return max(MIN_SEGMENT_WEIGHT_S, end - start)


# Platt scaling of the segments' mean avg_logprob (weighted by duration) into the probability
# that the transcript is right, fitted by `python -m bench.interop --calibrate` on
# faster-whisper-server 0.0.3 with Whisper tiny.en (docs/remote-servers.md),
# its offset lowered by ln 2 so that LISAN_CONFIDENCE_THRESHOLD's 0.5 is where P(right) is 2/3:
# a wrong transcript planned counts twice a right one asked again. exp(avg_logprob) itself is
# no probability: right transcripts there scored 0.25 to 0.76.
SEGMENT_SLOPE = 4.54
SEGMENT_OFFSET = 3.57
SEGMENT_LOGPROB_FLOOR = -50.0


def segment_confidence(segments: Sequence[Segment]) -> float | None:
    # Each avg_logprob at most 0 (a provider's rounding), and past SEGMENT_LOGPROB_FLOOR the
    # answer is 0 anyway: clamped there, neither the weighted sum nor exp() can overflow
    # (-1e308 would have: a 500).
    mean_logprob = _weighted_mean(segments, "avg_logprob", SEGMENT_LOGPROB_FLOOR, 0.0)
    if mean_logprob is None:
        return None
    return 1.0 / (1.0 + math.exp(-(SEGMENT_SLOPE * mean_logprob + SEGMENT_OFFSET)))


def _weighted_mean(segments: Sequence[Segment], name: str, low: float, high: float) -> float | None:
    """The mean of a score by the segments' durations, each value clamped to `low`..`high`:
    with bounded weights (`_duration`) it is always a number."""
    total = weighted = 0.0
    for segment in segments:
        value: float | None = getattr(segment, name)
        if value is not None:
            total += segment.weight
            weighted += segment.weight * min(high, max(low, value))
    return weighted / total if total else None


def _score(segment: dict[str, Any], name: str) -> float | None:
    value = segment.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ProviderBadAnswer(f"transcribe: a segment's {name} is not a number")
    return float(value)


@dataclass(frozen=True, slots=True)
class Word:
    text: str
    probability: float


MAX_WORDS = 2048
# A word a transcriber scores is one word with its spacing and punctuation (" Contacts,"): a
# longer text is read up to here, so the answer's size, not its words' lengths, bounds the work.
MAX_WORD_CHARS = 32


def words_from(answer: dict[str, Any]) -> list[Word]:
    """The words a server scored (`timestamp_granularities[]=word`), at the top of the answer
    or inside its segments, with their `probability`; a word without one is skipped (OpenAI's
    whisper-1 gives times only). Each is read up to `MAX_WORD_CHARS`."""
    raw = answer.get("words")
    if raw is None:
        segments = answer.get("segments")
        if isinstance(segments, list):
            raw = [w for s in segments if isinstance(s, dict) for w in s.get("words") or []]
    words = []
    for item in _objects(raw, MAX_WORDS, "words", "a word"):
        text, probability = item.get("word"), _score(item, "probability")
        if isinstance(text, str) and probability is not None:
            words.append(Word(text[:MAX_WORD_CHARS], min(1.0, max(0.0, probability))))
    return words


# Platt scaling of the least probability among the words that may name the target (not "the",
# not "tap": `core.text.naming_words`) into the probability that the transcript is right,
# fitted by `python -m bench.word_confidence` on faster-whisper with Whisper tiny.en, the
# offset lowered by ln 2 as for segments. It tells right from wrong far better than the
# segments' mean (area under the ROC curve 0.907 against 0.665; held out, at 90% of the right
# transcripts kept, 25% of the wrong ones pass against 65%): a near miss ("send" heard as
# "settings") is one doubtful word inside a confident segment.
WORD_SLOPE = 9.55
WORD_OFFSET = -3.11


def word_confidence(words: Sequence[Word]) -> float | None:
    if not words:
        return None
    naming = [w.probability for w in words if naming_words(w.text)]
    least = min(naming or [w.probability for w in words])
    return 1.0 / (1.0 + math.exp(-(WORD_SLOPE * least + WORD_OFFSET)))


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
