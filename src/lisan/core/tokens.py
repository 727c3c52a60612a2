"""Opaque bearer credentials: a prefix, 256 random bits, a checksum; only SHA-256 hashes are kept.

The checksum lets a leak scanner (or this service, before any database work) tell a real token
from noise; it protects nothing by itself.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
import string
import zlib

SESSION_PREFIX = "lsn_s_"
ADMIN_PREFIX = "lsn_a_"

_RANDOM_BYTES = 32
_BODY_CHARS = 43  # 32 bytes in URL-safe base64, unpadded
_CHECKSUM_CHARS = 6
_BASE62 = string.digits + string.ascii_letters
_SHAPE = re.compile(rf"^lsn_[sa]_[A-Za-z0-9_-]{{{_BODY_CHARS}}}[0-9A-Za-z]{{{_CHECKSUM_CHARS}}}$")


def _base62(number: int, width: int) -> str:
    digits = [""] * width
    for position in range(width - 1, -1, -1):
        number, digit = divmod(number, 62)
        digits[position] = _BASE62[digit]
    return "".join(digits)


def _checksum(prefix_and_body: str) -> str:
    return _base62(zlib.crc32(prefix_and_body.encode()), _CHECKSUM_CHARS)


def new_token(prefix: str) -> str:
    body = base64.urlsafe_b64encode(secrets.token_bytes(_RANDOM_BYTES)).rstrip(b"=").decode()
    return f"{prefix}{body}{_checksum(prefix + body)}"


def is_well_formed(token: str, prefix: str) -> bool:
    """Shape, prefix and checksum: cheap checks that need no database."""
    if not token.startswith(prefix) or not _SHAPE.match(token):
        return False
    head, checksum = token[:-_CHECKSUM_CHARS], token[-_CHECKSUM_CHARS:]
    return hmac.compare_digest(_checksum(head), checksum)


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def same_secret(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer ...` header: None when no bearer credential was
    offered (no header, or another scheme), "" when the Bearer scheme came without a token."""
    if authorization is None:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return None
    return token.strip()
