"""A provider's failed answer (a 4xx or 5xx) read: the ProviderError it becomes, how long to
wait before asking again, and the bounded excerpt that is logged.

The excerpt is the one thing of the provider's that is logged: "unknown model" must tell an
operator a misconfiguration from an outage. It is read from the answer's structure: its
`error.message` (with `type`, `code` and `param` when given), a FastAPI `detail` as each
error's `type` and location (never its `msg` or `input`: a 422 echoes what was sent there),
else its text. An excerpt that echoes any user text the request carried (`sent`: vocabulary
terms, the transcript, the screen's lines) is withheld whole, leaving its structured fields:
the user's words never reach a log through a provider's error. Control characters and runs of
spaces folded; our API key (when long enough to be a secret: a dummy like `x` masks nothing)
and anything shaped like a key masked before the excerpt is cut to ERROR_EXCERPT_CHARS.
"""

from __future__ import annotations

import itertools
import math
import re
import time
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any

import orjson

from lisan.providers.base import (
    ProviderBadAnswer,
    ProviderError,
    ProviderRefusedRequest,
    ProviderUnavailable,
)
from lisan.providers.http import Answer

_DEFAULT_RETRY_AFTER_S = 5
_MAX_RETRY_AFTER_S = 3600


def status_error(
    operation: str,
    answer: Answer,
    api_key: str | None,
    sent: Sequence[str] = (),
) -> tuple[ProviderError, dict[str, Any]] | None:
    """None for a 2xx; else the error to raise and the fields its log line adds: an answer that
    says the request's format or model was refused is a configuration error, whatever its
    status (429 aside); a 429 or 5xx is unavailable for a while (its Retry-After); any other
    status a bad answer."""
    status, content = answer.status, answer.content
    if 200 <= status < 300:
        return None
    excerpt = error_excerpt(content, api_key, sent)
    if status != 429 and refuses_the_request(content):
        refused = ProviderRefusedRequest(f"{operation}: HTTP {status}, the request refused")
        return refused, {"error_excerpt": excerpt, "kind": refused.kind}
    if status == 429 or status >= 500:
        retry_after_s = retry_after_seconds(answer.headers)
        kind = "429" if status == 429 else "5xx"
        unavailable = ProviderUnavailable(
            f"{operation}: HTTP {status}", retry_after_s=retry_after_s, kind=kind
        )
        return unavailable, {"error_excerpt": excerpt, "kind": kind, "retry_after_s": retry_after_s}
    bad = ProviderBadAnswer(f"{operation}: HTTP {status}", kind="4xx")
    return bad, {"error_excerpt": excerpt, "kind": "4xx"}


# What a server says when it refuses the request itself, not for a while: the structured-output
# form it does not take (llama-cpp-python answers `json_schema` with a 500 naming
# response_format) or a model it does not serve. Read in the answer's first KB, any case.
_REFUSED_REQUEST = re.compile(
    r"response_format|json_schema|json_object|structured output|guided_json"
    r"|model_not_found|(?:unknown|invalid|unsupported) model"
    r"|\bmodel\b[^.\n]{0,80}?\b(?:not found|does not exist|unknown|not supported|unsupported"
    r"|invalid|no such)",
    re.IGNORECASE,
)


def refuses_the_request(content: bytes) -> bool:
    """Whether an error answer says the request's format or model was refused: a configuration
    to fix (LISAN_OPENAI_PLAN_FORMAT, the model settings), never an outage to wait out."""
    return _REFUSED_REQUEST.search(content[:1024].decode("utf-8", "replace")) is not None


ERROR_EXCERPT_CHARS = 200
MIN_SECRET_CHARS = 8  # a shorter configured key is a dummy ("x"): masking it garbles every word
MIN_ECHO_CHARS = 4  # a sent text shorter than this is no echo worth withholding for
# A key-shaped run: OpenAI's `sk-...`, a bearer token, or 32 or more key characters mixing
# letters and digits (a token of any other provider); a long word of letters is no secret.
_KEY_SHAPED = re.compile(
    r"\bsk-[A-Za-z0-9_\-*.]{6,}|\bBearer\s+\S+"
    r"|(?=[A-Za-z0-9+/_\-]*\d)(?=[A-Za-z0-9+/_\-]*[A-Za-z])[A-Za-z0-9+/_\-]{32,}",
    re.IGNORECASE,
)
_FOLDED = re.compile(r"[\x00-\x1f\x7f\s]+")
WITHHELD = "[message withheld: it echoes the request]"
_WORDS = re.compile(r"\w+")


def error_excerpt(body: bytes, api_key: str | None, sent: Sequence[str] = ()) -> str:
    """A provider's error answer, made fit for a log line (the module's docstring)."""
    try:
        message, fields = _read_error(orjson.loads(body))
    except orjson.JSONDecodeError:
        message, fields = None, []
    if message is None and not fields:
        message = body[: ERROR_EXCERPT_CHARS * 4].decode("utf-8", "replace")
    if message is not None and _echoes(message, sent):
        message = WITHHELD
    text = " ".join(part for part in (message, *fields) if part)
    if api_key and len(api_key) >= MIN_SECRET_CHARS:
        text = text.replace(api_key, "[key]")
    text = _KEY_SHAPED.sub("[key]", _FOLDED.sub(" ", text)).strip()
    if len(text) > ERROR_EXCERPT_CHARS:
        text = text[: ERROR_EXCERPT_CHARS - 1] + "…"
    return text


def _echoes(message: str, sent: Sequence[str]) -> bool:
    """Whether the message quotes what was sent: a sent text whole (a vocabulary term), or two
    of its words running (a partial quote of a transcript or a screen line). Withholding a
    message that only happens to share two words is the safe side: its structured fields are
    still logged."""
    said = " ".join(_WORDS.findall(message.casefold()))
    for text in sent:
        words = _WORDS.findall(text.casefold())
        whole = " ".join(words)
        if len(whole) >= MIN_ECHO_CHARS and f" {whole} " in f" {said} ":
            return True
        if any(f" {a} {b} " in f" {said} " for a, b in itertools.pairwise(words)):
            return True
    return False


def _read_error(answer: Any) -> tuple[str | None, list[str]]:
    """The message of an error answer and its structured fields (the module's docstring)."""
    message = _error_message(answer)
    fields: list[str] = []
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        fields += [
            f"{key}={value}"
            for key in ("type", "code", "param")
            if isinstance(value := error.get(key), str | int) and not isinstance(value, bool)
        ]
    detail = answer.get("detail") if isinstance(answer, dict) else None
    if isinstance(detail, list):  # FastAPI's validation errors: type and location, never input
        for item in detail[:4]:
            if isinstance(item, dict):
                location = item.get("loc")
                where = ".".join(map(str, location)) if isinstance(location, list) else "?"
                fields.append(f"{item.get('type', 'error')} at {where}")
    return message, fields


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
