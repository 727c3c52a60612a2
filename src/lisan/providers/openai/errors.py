"""A provider's failed answer (a 4xx or 5xx) read: the ProviderError it becomes, how long to
wait before asking again, and the bounded excerpt that is logged.

The excerpt is the one thing of the provider's that is logged: "unknown model" must tell an
operator a misconfiguration from an outage. Its `error.message` when it has one, else its
text; control characters and runs of spaces folded, our API key and anything shaped like one
masked, at most ERROR_EXCERPT_CHARS.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import orjson

from lisan.providers.base import ProviderBadAnswer, ProviderError, ProviderUnavailable

_DEFAULT_RETRY_AFTER_S = 5
_MAX_RETRY_AFTER_S = 3600


def status_error(
    operation: str, response: httpx.Response, api_key: str | None
) -> tuple[ProviderError, dict[str, Any]] | None:
    """None for a 2xx; else the error to raise and the fields its log line adds: a 429 or 5xx
    is unavailable for a while (its Retry-After), any other status a bad answer."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    excerpt = error_excerpt(response.content, api_key)
    if status == 429 or status >= 500:
        retry_after_s = retry_after_seconds(response.headers)
        kind = "429" if status == 429 else "5xx"
        unavailable = ProviderUnavailable(
            f"{operation}: HTTP {status}", retry_after_s=retry_after_s, kind=kind
        )
        return unavailable, {"error_excerpt": excerpt, "kind": kind, "retry_after_s": retry_after_s}
    bad = ProviderBadAnswer(f"{operation}: HTTP {status}", kind="4xx")
    return bad, {"error_excerpt": excerpt, "kind": "4xx"}


ERROR_EXCERPT_CHARS = 200
_KEY_SHAPED = re.compile(r"\bsk-[A-Za-z0-9_\-*.]{6,}|\bBearer\s+\S+", re.IGNORECASE)
_FOLDED = re.compile(r"[\x00-\x1f\x7f\s]+")


def error_excerpt(body: bytes, api_key: str | None) -> str:
    """A provider's error answer, made fit for a log line (the module's docstring)."""
    try:
        text = _error_message(orjson.loads(body))
    except orjson.JSONDecodeError:
        text = None
    if text is None:
        text = body[: ERROR_EXCERPT_CHARS * 4].decode("utf-8", "replace")
    if api_key:
        text = text.replace(api_key, "[key]")
    text = _KEY_SHAPED.sub("[key]", _FOLDED.sub(" ", text)).strip()
    if len(text) > ERROR_EXCERPT_CHARS:
        text = text[: ERROR_EXCERPT_CHARS - 1] + "…"
    return text


def _error_message(answer: Any, depth: int = 0) -> str | None:
    """The message of an error answer: OpenAI's `{"error": {"message"}}`, FastAPI's `{"detail":
    ...}` (faster-whisper-server nests OpenAI's inside it), or a bare `message`."""
    if not isinstance(answer, dict) or depth > 3:
        return None
    for key in ("error", "detail", "message"):
        found = answer.get(key)
        if isinstance(found, str):
            return found
        message = _error_message(found, depth + 1)
        if message is not None:
            return message
    return None


def retry_after_seconds(headers: Mapping[str, str]) -> int:
    """The provider's Retry-After (seconds or an HTTP date), within 1 s .. 1 h; 5 s without."""
    value = headers.get("retry-after", "").strip()
    seconds: float | None = None
    if value:
        try:
            seconds = float(value)
        except ValueError:
            seconds = _seconds_until(value)
    if seconds is None or not math.isfinite(seconds):
        return _DEFAULT_RETRY_AFTER_S
    return max(1, min(_MAX_RETRY_AFTER_S, math.ceil(seconds)))


def _seconds_until(http_date: str) -> float | None:
    try:
        moment = parsedate_to_datetime(http_date)
    except (TypeError, ValueError):
        return None
    if moment.tzinfo is None:
        return None
    return moment.timestamp() - time.time()
