"""A short command forced onto longer Amharic speech is refused: its words must cover the time
the phone loop heard voiced, at a speaking pace (`coverage`)."""

from __future__ import annotations

from lisan.providers.local.coverage import forced_onto_longer_speech

READINGS = {"ላክ": "L AA K", "ወደ": "W AH D AH", "ታች": "T AA CH"}


def test_a_command_that_covers_the_voiced_time_at_a_speaking_pace_stands() -> None:
    words = [("ወደ", 20, 55), ("ታች", 56, 90)]
    phones = [("SIL", 0, 19), ("W", 20, 30), ("AH", 31, 60), ("T", 61, 90), ("SIL", 91, 199)]
    assert not forced_onto_longer_speech(words, phones, READINGS.get)


def test_a_short_command_among_longer_speech_is_forced() -> None:
    """ላክ heard in 30 frames of 250 voiced ones: the rest of the speech is no command."""
    words = [("ላክ", 100, 129)]
    phones = [("SIL", 0, 9), ("AH", 10, 259), ("SIL", 260, 299)]
    assert forced_onto_longer_speech(words, phones, READINGS.get)


def test_a_command_stretched_over_long_speech_is_forced() -> None:
    """Three phones over two seconds: no one says ላክ that slowly."""
    words = [("ላክ", 10, 209)]
    phones = [("AH", 10, 209)]
    assert forced_onto_longer_speech(words, phones, READINGS.get)
