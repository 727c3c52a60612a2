"""Whisper's input: the log-mel spectrogram of 16 kHz audio (80 mel bands, 25 ms windows every
10 ms), computed as Whisper computes it (a periodic Hann window, power spectrum, Slaney-style mel
filters, log10 clamped to 8 below its peak, scaled to about [-1, 1]), in numpy."""

from __future__ import annotations

import functools

import numpy as np

SAMPLE_RATE = 16_000
N_FFT = 400
HOP = 160
N_MELS = 80


def log_mel(samples: np.ndarray, frames: int) -> np.ndarray:
    """[N_MELS, frames] for float samples in [-1, 1], zero-padded (or cut) to `frames` frames."""
    needed = frames * HOP
    audio = np.zeros(needed, dtype=np.float32)
    audio[: min(len(samples), needed)] = samples[:needed]
    padded = np.pad(audio, N_FFT // 2, mode="reflect")
    windows = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP][:frames]
    spectrum = np.fft.rfft(windows * _window(), axis=-1)
    power = (spectrum.real**2 + spectrum.imag**2).astype(np.float32)
    mel = _filters() @ power.T
    log = np.log10(np.maximum(mel, 1e-10))
    log = np.maximum(log, log.max() - 8.0)
    return np.ascontiguousarray((log + 4.0) / 4.0, dtype=np.float32)


@functools.cache
def _window() -> np.ndarray:
    return (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(N_FFT) / N_FFT)).astype(np.float32)


@functools.cache
def _filters() -> np.ndarray:
    """librosa's `filters.mel(sr=16000, n_fft=400, n_mels=80)`: Slaney's mel scale and area
    normalisation, as Whisper's mel filters were made."""
    frequencies = np.linspace(0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    edges = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2))
    widths = np.diff(edges)
    ramps = edges[:, None] - frequencies[None, :]
    lower = -ramps[:-2] / widths[:-1, None]
    upper = ramps[2:] / widths[1:, None]
    weights = np.maximum(0.0, np.minimum(lower, upper))
    weights *= (2.0 / (edges[2:] - edges[:-2]))[:, None]
    return weights.astype(np.float32)


_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOG_STEP = np.log(6.4) / 27.0


def _hz_to_mel(hz: float) -> float:
    if hz < _MIN_LOG_HZ:
        return hz / _F_SP
    return float(_MIN_LOG_MEL + np.log(hz / _MIN_LOG_HZ) / _LOG_STEP)


def _mel_to_hz(mels: np.ndarray) -> np.ndarray:
    linear = _F_SP * mels
    logarithmic = _MIN_LOG_HZ * np.exp(_LOG_STEP * (mels - _MIN_LOG_MEL))
    return np.where(mels >= _MIN_LOG_MEL, logarithmic, linear)
