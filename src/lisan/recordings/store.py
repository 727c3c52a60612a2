"""The retained recordings on disk, one folder per user under LISAN_STORAGE_DIR/audio: each
file is a command's WAV, named by its command id. Blocking file work: call it in a thread."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Generator
from pathlib import Path

from lisan.core.wav import wav_bytes

RemoveRecordings = Callable[[Path, str], None]  # (storage dir, user id); blocking, as remove_audio


def store_audio(storage_dir: Path, user_id: str, command_id: str, pcm: bytes) -> Path:
    """Write the recording as WAV under the user's folder (blocking: call it in a thread). Only
    while the user's audio_retention consent is granted; the deletion job removes the folder."""
    folder = audio_folder(storage_dir, user_id)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{command_id}.wav"
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(wav_bytes(pcm))
    temporary.replace(path)  # never a half-written object under the final name
    return path


def audio_folder(storage_dir: Path, user_id: str) -> Path:
    """Where a user's recordings are kept: one folder per user, all of it theirs."""
    return storage_dir / "audio" / user_id


def audio_owners(storage_dir: Path) -> Generator[str, None, None]:
    """Every user who has a folder of recordings, read from the directory as the caller goes
    (blocking: advance it in a thread). One pass over the directory in its own order, holding
    only the entry at hand, whatever the directory's size: a folder there throughout the pass
    is named (POSIX leaves open only folders added or removed meanwhile), so removing a folder
    already named leaves the rest of the pass whole. Close it, or finish it, to release the
    directory."""
    root = storage_dir / "audio"
    if not root.is_dir():
        return
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                yield entry.name


def remove_audio(storage_dir: Path, user_id: str) -> None:
    """Remove a user's recordings (blocking: call it in a thread). Safe to repeat, and to run
    from several workers at once: what another removed first is simply gone."""
    folder = audio_folder(storage_dir, user_id)
    if not folder.exists():
        return
    for path in sorted(folder.rglob("*"), reverse=True):  # files before their folders
        with contextlib.suppress(FileNotFoundError):
            path.rmdir() if path.is_dir() and not path.is_symlink() else path.unlink()
    with contextlib.suppress(FileNotFoundError):
        folder.rmdir()
