"""Real speech for tests and benchmarks: espeak-ng speaks, sox converts to 16 kHz mono 16-bit
PCM (`lisan.say.speak`), cached per process; and the padding, silence and encodings a command
body needs."""

from __future__ import annotations

import base64
from functools import cache

import numpy as np

from lisan.core.locale import Locale
from lisan.core.wav import SAMPLE_RATE
from lisan.say import VOICES, speak

BYTES_PER_SAMPLE = 2


@cache
def spoken(text: str, language: str = "en-US") -> bytes:
    """PCM of `text` spoken by espeak-ng, converted with sox (`lisan.say.speak`)."""
    return speak(text, VOICES[Locale(language)])


def padded(pcm: bytes, seconds: float) -> bytes:
    """`pcm` followed by silence up to `seconds` (or cut to it)."""
    wanted = int(seconds * SAMPLE_RATE) * BYTES_PER_SAMPLE
    return (pcm + b"\0" * max(0, wanted - len(pcm)))[:wanted]


def silence(seconds: float) -> bytes:
    return b"\0" * (int(seconds * SAMPLE_RATE) * BYTES_PER_SAMPLE)


def hum(seconds: float, amplitude: int = 40) -> bytes:
    """Faint steady noise, like a quiet room: not speech."""
    rng = np.random.default_rng(7)
    samples = rng.normal(0, amplitude, int(seconds * SAMPLE_RATE)).astype("<i2")
    return samples.tobytes()


def b64(pcm: bytes) -> str:
    return base64.b64encode(pcm).decode()


def duration_ms(pcm: bytes) -> int:
    return len(pcm) * 1000 // (SAMPLE_RATE * BYTES_PER_SAMPLE)
