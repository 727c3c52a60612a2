"""Real speech for the tests, made the way the issue asks: espeak-ng speaks, sox converts to
16 kHz mono 16-bit PCM. Cached per test session."""

from __future__ import annotations

import base64
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import numpy as np

SAMPLE_RATE = 16_000
VOICES = {"en-US": "en-us", "am-ET": "am"}


@cache
def spoken(text: str, language: str = "en-US") -> bytes:
    """PCM of `text` spoken by espeak-ng, converted with sox."""
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"{tool} is not installed (make system-deps)")
    with tempfile.TemporaryDirectory() as directory:
        wav, raw = Path(directory) / "speech.wav", Path(directory) / "speech.raw"
        subprocess.run(
            ["espeak-ng", "-v", VOICES[language], "-w", str(wav), text], check=True, timeout=30
        )
        subprocess.run(
            [
                "sox",
                str(wav),
                "-r",
                str(SAMPLE_RATE),
                "-c",
                "1",
                "-b",
                "16",
                "-e",
                "signed-integer",
                "-t",
                "raw",
                str(raw),
            ],
            check=True,
            timeout=30,
        )
        return raw.read_bytes()


def padded(pcm: bytes, seconds: float) -> bytes:
    """`pcm` followed by silence up to `seconds` (or cut to it)."""
    wanted = int(seconds * SAMPLE_RATE) * 2
    return (pcm + b"\0" * max(0, wanted - len(pcm)))[:wanted]


def silence(seconds: float) -> bytes:
    return b"\0" * (int(seconds * SAMPLE_RATE) * 2)


def hum(seconds: float, amplitude: int = 40) -> bytes:
    """Faint steady noise, like a quiet room: not speech."""
    rng = np.random.default_rng(7)
    samples = rng.normal(0, amplitude, int(seconds * SAMPLE_RATE)).astype("<i2")
    return samples.tobytes()


def b64(pcm: bytes) -> str:
    return base64.b64encode(pcm).decode()


def duration_ms(pcm: bytes) -> int:
    return len(pcm) // 32
