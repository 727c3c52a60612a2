"""A multipart/form-data body built in one piece.

httpx encodes `files=` as a stream of small chunks, each through its HTTP/1.1 writer: for a
5 s recording that is most of the cost of a transcription call on our side. One bytes object
goes out in a single write.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class FilePart:
    name: str
    filename: str
    content_type: str
    parts: tuple[bytes, ...]  # its content, in pieces joined only once, into the body


def form_data(fields: Mapping[str, str | tuple[str, ...]], file: FilePart) -> tuple[bytes, str]:
    """(body, Content-Type). Names are ours (ASCII, no quotes); values go as UTF-8, as httpx
    sends them, a tuple as one part per value (`timestamp_granularities[]`); the random
    boundary cannot occur in them by chance."""
    boundary = secrets.token_hex(16)
    delimiter = f"--{boundary}\r\n".encode()
    pieces: list[bytes] = []
    for name, values in fields.items():
        for value in (values,) if isinstance(values, str) else values:
            pieces += [
                delimiter,
                f'Content-Disposition: form-data; name="{name}"\r\n\r\n'.encode(),
                value.encode(),
                b"\r\n",
            ]
    pieces += [
        delimiter,
        f'Content-Disposition: form-data; name="{file.name}"; filename="{file.filename}"\r\n'
        f"Content-Type: {file.content_type}\r\n\r\n".encode(),
        *file.parts,
        f"\r\n--{boundary}--\r\n".encode(),
    ]
    return b"".join(pieces), f"multipart/form-data; boundary={boundary}"
