"""The scores in a Whisper-style server's `verbose_json` answer: its segments' (`segments_from`,
each weighted by its duration within the clip) and its words' (`words_from`), each read bounded
and checked, and the confidence each gives the transcript (`word_confidence`, else
`segment_confidence`: a logistic curve fitted on a real server). `transcription.transcript_from`
reads the answer with them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lisan.core.text import naming_words
from lisan.providers.base import MAX_DURATION_MS, ProviderBadAnswer


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
    mean_logprob = weighted_mean(segments, "avg_logprob", SEGMENT_LOGPROB_FLOOR, 0.0)
    if mean_logprob is None:
        return None
    return 1.0 / (1.0 + math.exp(-(SEGMENT_SLOPE * mean_logprob + SEGMENT_OFFSET)))


def weighted_mean(segments: Sequence[Segment], name: str, low: float, high: float) -> float | None:
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
