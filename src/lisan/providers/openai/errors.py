"""A provider's failed answer (a 4xx or 5xx) read: the ProviderError it becomes, how long to
wait before asking again, and the bounded excerpt that is logged.

The excerpt is the one thing of the provider's that is logged: "unknown model" must tell an
operator a misconfiguration from an outage. It is read from the answer's structure: its
`error.message` (with `type`, `code` and `param` when given as a string or a number; nested
values are never read), a FastAPI `detail` as each error's `type` and location (never its `msg`
or `input`: a 422 echoes what was sent there), else its text. Then, in this order:
1. each part is cut first (the message to MESSAGE_CHARS, a field to FIELD_CHARS), a word the
   cut splits dropped whole, so everything after works on a bounded text;
2. escapes are decoded (`withholding.unescaped`), so the user's words are recognised however
   the server spelled them back;
3. control characters and runs of spaces are folded to one space, and the text is cut to
   ERROR_EXCERPT_CHARS, a split word again dropped (a name cut in two is no longer one);
4. every word of the user's (`Sent`) is replaced by WITHHELD, in the message and in the
   structured fields alike (which words are the user's: `providers.openai.withholding`);
5. our API key (when long enough to be a secret: a dummy like `x` masks nothing) and anything
   shaped like a key are masked;
6. what the markers lengthened is cut to ERROR_EXCERPT_CHARS again.
Every step is linear in what it reads (no pattern backtracks, and none is made per term), and
only the parsing of the body reads more than the bounded parts: a 1 MB body costs its parse.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping
from email.utils import parsedate_to_datetime
from typing import Any

import orjson

from lisan.providers.base import (
    Outcome,
    ProviderBadAnswer,
    ProviderError,
    ProviderRefusedRequest,
    ProviderUnavailable,
)
from lisan.providers.http import Answer
from lisan.providers.openai.withholding import Sent, Withholding, unescaped

_DEFAULT_RETRY_AFTER_S = 5
_MAX_RETRY_AFTER_S = 3600


def status_error(
    operation: str,
    answer: Answer,
    api_key: str | None,
    sent: Sent = Sent(),
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
        kind = Outcome.HTTP_429 if status == 429 else Outcome.HTTP_5XX
        unavailable = ProviderUnavailable(
            f"{operation}: HTTP {status}", retry_after_s=retry_after_s, kind=kind
        )
        return unavailable, {"error_excerpt": excerpt, "kind": kind, "retry_after_s": retry_after_s}
    bad = ProviderBadAnswer(f"{operation}: HTTP {status}", kind=Outcome.HTTP_4XX)
    return bad, {"error_excerpt": excerpt, "kind": bad.kind}


# What a server says when it refuses the request itself, not for a while: the structured-output
# form it does not take (llama-cpp-python answers `json_schema` with a 500 naming
# response_format) or a model it does not serve. Read in the answer's first KB, any case: its
# one gap (at most 80 characters after "model") is tried on a bounded window, whatever the body.
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
# What is read of the error's message before anything else is done with it (escapes and runs of
# spaces included, which the excerpt folds): every step after the cut works on a bounded text.
MESSAGE_CHARS = 4 * ERROR_EXCERPT_CHARS
FIELD_CHARS = 100  # each structured field, likewise
MAX_LOCATION_PARTS = 8
MIN_SECRET_CHARS = 8  # a shorter configured key is a dummy ("x"): masking it garbles every word


def error_excerpt(body: bytes, api_key: str | None, sent: Sent = Sent()) -> str:
    """A provider's error answer, made fit for a log line (the module's docstring). Linear in
    the body: it is parsed once, and every later step reads the bounded parts cut from it."""
    try:
        message, fields = _read_error(orjson.loads(body))
    except orjson.JSONDecodeError:
        message, fields = None, []
    if message is None and not fields:  # not JSON, or no error we know: the body's text
        # 4 bytes at most per character: past MESSAGE_CHARS whenever the body was cut here.
        message = body[: MESSAGE_CHARS * 4].decode("utf-8", "replace")
    parts = [_cut(message, MESSAGE_CHARS)] if message is not None else []
    text = " ".join(part for part in (*parts, *fields) if part)
    text = _cut(_FOLDED.sub(" ", unescaped(text)).strip(), ERROR_EXCERPT_CHARS)
    text = Withholding(sent).apply(text)
    if api_key and len(api_key) >= MIN_SECRET_CHARS:
        text = text.replace(api_key, "[key]")
    text = _KEY_SHAPED.sub(_masked, text).strip()
    if len(text) > ERROR_EXCERPT_CHARS:
        text = text[: ERROR_EXCERPT_CHARS - 1] + "…"
    return text


def _cut(text: str, limit: int) -> str:
    """`text` cut to `limit` characters. A word the cut splits is dropped whole: a key or an
    escape cut in two is no longer recognised as one, and no part of it may reach the log."""
    if len(text) <= limit:
        return text
    end = limit
    if not _is_gap(text[limit]):
        while end and not _is_gap(text[end - 1]):
            end -= 1
    return text[:end] + " …"


def _is_gap(char: str) -> bool:
    return char.isspace() or char < " " or char == "\x7f"


# Runs of control characters and spaces, which the excerpt folds to one space.
_FOLDED = re.compile(r"[\x00-\x1f\x7f\s]++")

# A key-shaped run: OpenAI's `sk-...`, a bearer token, or 32 or more key characters mixing
# letters and digits (a token of any other provider; `_masked` checks the mix, so no pattern
# scans ahead from every character of a long word); a long word of letters is no secret.
_KEY_SHAPED = re.compile(
    r"\bsk-[A-Za-z0-9_\-*.]{6,}+|\bBearer\s++\S++|(?P<run>[A-Za-z0-9+/_\-]{32,}+)",
    re.IGNORECASE,
)


def _masked(shaped: re.Match[str]) -> str:
    run = shaped["run"]
    if run is None or (any(c.isdigit() for c in run) and any(c.isalpha() for c in run)):
        return "[key]"
    return run


def _read_error(answer: Any) -> tuple[str | None, list[str]]:
    """The message of an error answer and its structured fields (the module's docstring), each
    field cut to FIELD_CHARS; a field that is neither a string nor a number is not read."""
    message = _error_message(answer)
    fields: list[str] = []
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        fields += [
            f"{key}={_cut(str(value), FIELD_CHARS)}"
            for key in ("type", "code", "param")
            if _is_scalar(value := error.get(key))
        ]
    detail = answer.get("detail") if isinstance(answer, dict) else None
    if isinstance(detail, list):  # FastAPI's validation errors: type and location, never input
        for item in detail[:4]:
            if isinstance(item, dict):
                kind = item.get("type")
                location = item.get("loc")
                where = (
                    ".".join(
                        _cut(str(part), FIELD_CHARS) if _is_scalar(part) else "?"
                        for part in location[:MAX_LOCATION_PARTS]
                    )
                    if isinstance(location, list)
                    else "?"
                )
                what = _cut(kind, FIELD_CHARS) if isinstance(kind, str) else "error"
                fields.append(f"{what} at {where}")
    return message, fields


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


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
