"""16 kHz mono 16-bit PCM framed as WAV: how providers receive audio and how it is stored."""

from __future__ import annotations

import struct

SAMPLE_RATE = 16_000
_CHANNELS = 1
_SAMPLE_BYTES = 2


def wav_header(pcm_length: int) -> bytes:
    """The 44-byte RIFF/WAVE header of `pcm_length` bytes of our PCM (what `wave` writes)."""
    byte_rate = SAMPLE_RATE * _CHANNELS * _SAMPLE_BYTES
    return struct.pack(
        "<4sI4s4sIHHIIHH4sI",
        b"RIFF",
        36 + pcm_length,
        b"WAVE",
        b"fmt ",
        16,  # the fmt chunk's size
        1,  # PCM
        _CHANNELS,
        SAMPLE_RATE,
        byte_rate,
        _CHANNELS * _SAMPLE_BYTES,
        8 * _SAMPLE_BYTES,
        b"data",
        pcm_length,
    )


def wav_bytes(pcm: bytes) -> bytes:
    return wav_header(len(pcm)) + pcm
