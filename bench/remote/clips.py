"""What the remote-provider benches send a real transcription server (`bench.interop`,
`bench.word_confidence`): English command sentences in four espeak-ng voices, the same
reversed, Amharic commands, and the real recordings of ../shared/speech/; how a transcript is
compared with what was said; and the split of sentences into two folds."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.accuracy.cases import AMHARIC
from bench.kit.servers import ROOT
from lisan.core.text import latin_words
from lisan.say import speak

SHARED_SPEECH = ROOT.parent / "shared" / "speech"
VOCABULARY = [("Telegram", "app"), ("Yonas", "contact"), ("Abebe", "contact")]
ENGLISH = [
    "open telegram",
    "go back",
    "go home",
    "scroll down",
    "scroll up",
    "tap send",
    "call yonas",
    "open settings",
    "tap the search button",
    "type hello world",
    "open the camera",
    "tap voice call",
    "send a message to abebe",
    "turn on the flashlight",
]
ENGLISH_VOICES = [("en-us", 140), ("en-us", 175), ("en-us+f3", 140), ("en-us+f3", 175)]
AMHARIC_SENTENCES = [case.said for case in AMHARIC][:8]
NUMBERS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6"}
NUMBERS |= {"seven": "7", "eight": "8", "nine": "9", "zero": "0"}


@dataclass
class Clip:
    group: str  # english, reversed, amharic, real_word, background
    said: str
    speaker: str  # the espeak-ng voice and rate, or the recording's speaker
    language: str  # what the command asks for: en-US or am-ET
    pcm: bytes


def fold(text: str) -> str:
    """What a transcript says, for comparison: its Latin words (`lisan.core.text`) run together
    ("Tap, voice call." is "tap voice call"; "flash light" is "flashlight"), number words as
    digits."""
    return "".join(NUMBERS.get(word, word) for word in latin_words(text))


def clips(quick: bool) -> list[Clip]:
    made: list[Clip] = []
    voices = ENGLISH_VOICES[:2] if quick else ENGLISH_VOICES
    for said in ENGLISH:
        for voice, rate in voices:
            made.append(Clip("english", said, f"{voice}@{rate}", "en-US", speak(said, voice, rate)))
    for said in ENGLISH:
        pcm = np.frombuffer(speak(said, "en-us", 175), dtype="<i2")[::-1].tobytes()
        made.append(Clip("reversed", said[::-1], "en-us@175", "en-US", pcm))
    for said in AMHARIC_SENTENCES[:3] if quick else AMHARIC_SENTENCES:
        made.append(Clip("amharic", said, "am@130", "am-ET", speak(said, "am", 130)))
    manifest = (SHARED_SPEECH / "manifest.tsv").read_text().splitlines()[1:]
    for line in manifest[::4] if quick else manifest:
        name, said, kind = line.split("\t")
        group = "real_word" if kind == "word" else "background"
        speaker = Path(name).stem.split("_")[1] if group == "real_word" else Path(name).stem
        pcm = (SHARED_SPEECH / name).read_bytes()
        made.append(Clip(group, said if group == "real_word" else "", speaker, "en-US", pcm))
    return made


def fold_of(text: str) -> int:
    return hashlib.sha256(text.encode()).digest()[0] % 2
