"""The speech the accuracy benches make at run time: a sentence said by espeak-ng (`lisan.say`)
padded or cut to 2 s of 16 kHz mono 16-bit PCM, and 2 s of silence and of noise that is no
voice."""

from __future__ import annotations

import subprocess

import numpy as np

from lisan import say

SAMPLE_RATE = 16_000
SECONDS = 2.0


def speak(text: str, voice: str, rate: int) -> bytes:
    return padded(say.speak(text, voice, rate))


def padded(pcm: bytes, seconds: float = SECONDS) -> bytes:
    wanted = int(seconds * SAMPLE_RATE) * 2
    return pcm[:wanted] if len(pcm) >= wanted else pcm + b"\0" * (wanted - len(pcm))


def noises() -> list[tuple[str, bytes]]:
    """Silence and noise, 2 s each: digital silence, a quiet and a loud hiss, a hum, silence
    with a DC offset, brown and pink noise, and loud sounds that are no voice (keyboard clicks,
    door knocks, beeps: the energy stage alone calls them speech)."""
    rng = np.random.default_rng(11)
    n = int(SECONDS * SAMPLE_RATE)
    t = np.arange(n) / SAMPLE_RATE
    clips = [
        ("silence", np.zeros(n)),
        ("quiet hiss", rng.normal(0, 60, n)),
        ("loud hiss", rng.normal(0, 3000, n)),
        ("mains hum", 2000 * np.sin(2 * np.pi * 50 * t)),
        ("offset silence", np.full(n, -2000.0) + rng.normal(0, 30, n)),
    ]
    for name, per_second, level in (("keyboard clicks", 8, 4000), ("door knocks", 2, 12000)):
        x = rng.normal(0, 20, n)
        burst = level * rng.normal(0, 1, 400) * np.exp(-np.arange(400) / 60)
        for start in rng.integers(0, n - 400, int(per_second * SECONDS)):
            x[start : start + 400] += burst
        clips.append((name, x))
    clips.append(("beeps", 6000 * np.sign(np.sin(2 * np.pi * 880 * t)) * ((t * 2) % 1 < 0.5)))
    pcm = [(name, np.clip(x, -32768, 32767).astype("<i2").tobytes()) for name, x in clips]
    for color in ("brownnoise", "pinknoise"):
        raw = subprocess.run(
            ["sox", "-R", "-n", "-t", "raw", "-r", "16000", "-c", "1", "-b", "16", "-e",
             "signed-integer", "-", "synth", str(SECONDS), color, "vol", "0.3"],
            capture_output=True, check=True,
        ).stdout  # fmt: skip
        pcm.append((color, padded(raw)))
    return pcm
