"""Whether a transcript may go to the planner: the transcriber's own doubts, whichever provider
gave them. A transcript that fails one is REPROMPTed with the reason, never planned.

The checks run in the order an operator reads them: nothing heard, heard more than any command
holds (`MAX_TRANSCRIPT_CHARS`), heard only the vocabulary
prompt echoed back (Whisper-style models do this on unclear audio: planned, it would send the
user's vocabulary to the planner), heard in another language,
heard nothing but noise, heard a loop (the server's compression ratio, or a phrase said three
times running), then too little confidence. Only a Whisper-style server
reports the language, `no_speech_prob` and the compression ratio (`Transcript`); without them
those checks pass and the confidence gate alone decides.

`Doubt` names each, its value the REPROMPT's `reprompt_reason` and the `reason` label of
`lisan_commands` (declared to the metrics here, at import). `NO_SPEECH` is also the gate's, when
the voice-activity model hears no one (`pipeline.gate`).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

from lisan.core import metrics
from lisan.core.locale import Locale
from lisan.core.text import fold
from lisan.providers.base import Transcript

# Whisper's own `no_speech_threshold` and `compression_ratio_threshold` (its decoder uses them to
# drop a silent segment and to retry a looping one); measured on a real server by
# `python -m bench.interop` (docs/benchmarks-history-2026.md, "a remote transcription server").
# As in Whisper, a transcript is taken for silence only when the server was also unsure of it
# (there `avg_logprob` under -1; here the confidence gate): a real "up." scored 0.69 and was
# right.
NO_SPEECH_PROB = 0.6
LOOP_COMPRESSION_RATIO = 2.4
# Whisper's bound is made for 30 s windows: a command's loop is too short to compress that well
# ("Abebe, Abebe, Abebe, Abebe, Abebe..." scored 1.71; a natural 224-byte dictation 1.54). So a
# phrase of up to LOOP_PHRASE_WORDS words said LOOP_REPEATS times running is a loop too.
LOOP_REPEATS = 3
LOOP_PHRASE_WORDS = 3
# 15 s of speech is a few hundred characters: a longer transcript is no command (a server's
# flood or loop), REPROMPTed before any other check reads it.
MAX_TRANSCRIPT_CHARS = 1_000
ECHO_MIN_TERMS = 2
LOOP_TEXT_CHARS = 2_000  # 15 s of speech is a few hundred: a provider's flood is not read whole


class Doubt(StrEnum):
    """Why a transcript is REPROMPTed instead of planned, in the order `doubt` checks."""

    EMPTY_TRANSCRIPT = "empty_transcript"
    TRANSCRIPT_TOO_LONG = "transcript_too_long"
    VOCABULARY_ECHO = "vocabulary_echo"
    LANGUAGE_MISMATCH = "language_mismatch"
    NO_SPEECH = "no_speech"
    REPETITIVE_TRANSCRIPT = "repetitive_transcript"
    LOW_CONFIDENCE = "low_confidence"


metrics.COMMAND_REASONS.declare(Doubt)


def doubt(
    transcript: Transcript,
    locale: Locale,
    confidence_threshold: float,
    *,
    vocabulary: Sequence[str] = (),
) -> Doubt | None:
    """The doubt that keeps this transcript from the planner, or None. `vocabulary`
    is what the transcriber was prompted with."""
    if not transcript.text.strip():
        return Doubt.EMPTY_TRANSCRIPT
    if len(transcript.text) > MAX_TRANSCRIPT_CHARS:
        return Doubt.TRANSCRIPT_TOO_LONG
    if echoes(transcript.text, vocabulary):
        return Doubt.VOCABULARY_ECHO
    if transcript.language is not None and transcript.language != locale.language:
        # An English-only model asked for Amharic hears English gibberish, and says "en".
        return Doubt.LANGUAGE_MISMATCH
    confident = transcript.confidence is not None and transcript.confidence >= confidence_threshold
    no_speech = transcript.no_speech_prob
    if no_speech is not None and no_speech >= NO_SPEECH_PROB and not confident:
        return Doubt.NO_SPEECH
    ratio = transcript.compression_ratio
    if (ratio is not None and ratio > LOOP_COMPRESSION_RATIO) or loops(transcript.text):
        return Doubt.REPETITIVE_TRANSCRIPT
    if transcript.confidence is not None and not confident:
        return Doubt.LOW_CONFIDENCE
    return None


def echoes(text: str, vocabulary: Sequence[str]) -> bool:
    """Whether a transcript is the vocabulary prompt echoed back: every word of it is a word of
    the prompt's terms, and it holds at least ECHO_MIN_TERMS of them (one term alone may be
    what was said: a name)."""
    words = fold(text[:LOOP_TEXT_CHARS]).split()
    terms = [fold(term).split() for term in vocabulary]
    prompt_words = {word for term in terms for word in term}
    if not words or not set(words) <= prompt_words:
        return False
    said = " ".join(words)
    return sum(" ".join(term) in said for term in terms if term) >= ECHO_MIN_TERMS


def loops(text: str) -> bool:
    """A phrase of 1 to LOOP_PHRASE_WORDS words said LOOP_REPEATS times running."""
    words = fold(text[:LOOP_TEXT_CHARS]).split()
    for size in range(1, LOOP_PHRASE_WORDS + 1):
        for start in range(len(words) - size * LOOP_REPEATS + 1):
            phrase = words[start : start + size]
            if all(
                words[start + size * n : start + size * (n + 1)] == phrase
                for n in range(1, LOOP_REPEATS)
            ):
                return True
    return False
