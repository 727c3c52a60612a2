"""The transcriber's doubts (`hearing.doubt`): each one alone REPROMPTs with its reason, in the
documented order, and a transcript without those signals is judged by its confidence alone.
Through the route, on a real server's answers: tests/providers/test_real_answers.py."""

from __future__ import annotations

import pytest

from lisan.commands import hearing
from lisan.core import metrics
from lisan.core.locale import Locale
from lisan.providers.base import Transcript

CLEAR = Transcript("go back", 0.9, language="en", no_speech_prob=0.05, compression_ratio=0.9)


def doubt(transcript: Transcript, locale: Locale = Locale.EN_US) -> str | None:
    return hearing.doubt(transcript, locale, confidence_threshold=0.5)


def test_a_clear_transcript_in_the_language_asked_passes() -> None:
    assert doubt(CLEAR) is None
    assert doubt(Transcript("ወደ ኋላ", 0.9, language="am"), Locale.AM_ET) is None


@pytest.mark.parametrize(
    ("changed", "reason"),
    [
        (Transcript("  ", 0.9, language="fr"), "empty_transcript"),
        (Transcript("go back", 0.9, language="am"), "language_mismatch"),
        (Transcript("go back", 0.9, language="english"), "language_mismatch"),  # never mapped
        (Transcript("go back", 0.49, no_speech_prob=0.6), "no_speech"),
        (Transcript("go back", None, no_speech_prob=0.6), "no_speech"),
        (Transcript("go go go go", 0.9, compression_ratio=2.41), "repetitive_transcript"),
        (Transcript("go back", 0.49), "low_confidence"),
    ],
)
def test_each_doubt_reprompts_with_its_reason(changed: Transcript, reason: str) -> None:
    assert doubt(changed) == reason


def test_a_confident_transcript_is_speech_whatever_its_no_speech_prob() -> None:
    """Whisper's own rule: silence only when the decoder was unsure too (a real "up." scored
    0.69 and was right)."""
    assert doubt(Transcript("up", 0.63, language="en", no_speech_prob=0.69)) is None


def test_the_bounds_themselves_pass() -> None:
    assert doubt(Transcript("go back", 0.5, no_speech_prob=0.599, compression_ratio=2.4)) is None


def test_amharic_heard_as_english_is_another_language_whatever_its_confidence() -> None:
    looped = Transcript("Abebe, Abebe, Abebe", 0.99, language="en", compression_ratio=3.0)
    assert doubt(looped, Locale.AM_ET) == "language_mismatch"


@pytest.mark.parametrize(
    "text",
    [
        "Abebe, Abebe, Abebe, Abebe, Abebe...",  # the real server's answer to Amharic
        "go go go",
        "Thank you. Thank you. Thank you.",
        "call abebe now, call abebe now, CALL ABEBE NOW",
        "open telegram " + "scroll down " * 3,
    ],
)
def test_a_phrase_said_three_times_running_is_a_loop(text: str) -> None:
    assert hearing.loops(text)
    assert doubt(Transcript(text, 0.9, compression_ratio=1.7)) == "repetitive_transcript"


@pytest.mark.parametrize(
    "text",
    ["Abebe, Abebe.", "Call Abebe. Call Abebe.", "scroll down and scroll down", "go back", "",
     "type one two three one two four one two five",
     "Type I will be there at five, please keep the door open and tell the others that the "
     "meeting moved to the small room on the second floor next to the kitchen"],
)  # fmt: skip
def test_speech_that_repeats_less_is_no_loop(text: str) -> None:
    assert not hearing.loops(text)


def test_a_flood_of_text_is_read_only_so_far() -> None:
    flood = "word " * 1_000_000 + "go go go"
    assert hearing.loops(flood)  # the first words already loop
    distinct = " ".join(f"w{n}" for n in range(600))  # about 2,900 characters, no loop
    assert not hearing.loops(distinct + " go go go")  # past LOOP_TEXT_CHARS: never read


def test_without_the_signals_only_the_confidence_decides() -> None:
    assert doubt(Transcript("go back", None)) is None
    assert doubt(Transcript("go back", 0.1)) == "low_confidence"


VOCABULARY = ["Abebe Kebede", "Telegram", "Selam"]


@pytest.mark.parametrize(
    "text", ["Abebe Kebede, Telegram, Selam", "Telegram, Selam.", "abebe kebede telegram"]
)
def test_the_vocabulary_prompt_echoed_back_is_reprompted(text: str) -> None:
    """A transcript made only of the prompt's terms (two or more) is the prompt echoed back, as
    Whisper-style models do on unclear audio: planned, it would send the user's vocabulary to
    the planner. It is REPROMPTed, whatever its confidence."""
    heard = Transcript(text, 0.95, language="en")
    assert hearing.doubt(heard, Locale.EN_US, 0.5, vocabulary=VOCABULARY) == "vocabulary_echo"


@pytest.mark.parametrize("text", ["open Telegram", "call Abebe Kebede", "Selam", "Telegram"])
def test_a_command_that_names_a_term_is_no_echo(text: str) -> None:
    """A command that uses a term, or one term alone (a name may be what was said), passes."""
    heard = Transcript(text, 0.95, language="en")
    assert hearing.doubt(heard, Locale.EN_US, 0.5, vocabulary=VOCABULARY) is None


def test_a_transcript_longer_than_any_command_is_reprompted() -> None:
    """15 s of speech is a few hundred characters: a transcript past MAX_TRANSCRIPT_CHARS is a
    flood, REPROMPTed before any other check reads it; one at the bound passes."""
    at_bound = "go " * (hearing.MAX_TRANSCRIPT_CHARS // 3)
    assert doubt(Transcript(at_bound[: hearing.MAX_TRANSCRIPT_CHARS], 0.9)) != "transcript_too_long"
    flood = Transcript("x" * (hearing.MAX_TRANSCRIPT_CHARS + 1), 0.9)
    assert doubt(flood) == "transcript_too_long"


def test_every_doubt_is_a_value_of_the_commands_reason_label() -> None:
    assert set(hearing.Doubt) <= metrics.LABEL_VALUES["reason"]
    assert set(hearing.Doubt) <= metrics.COMMAND_REASONS.values
