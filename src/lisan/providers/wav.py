"""16 kHz mono 16-bit PCM framed as WAV: how providers receive audio and how it is stored."""

from __future__ import annotations

import io
import wave

SAMPLE_RATE = 16_000


def wav_bytes(pcm: bytes) -> bytes:
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(SAMPLE_RATE)
        wav.writeframes(pcm)
    return buffer.getvalue()
