"""A provider's failed answer (a 4xx or 5xx) read: the ProviderError it becomes, how long to
wait before asking again, and the bounded excerpt that is logged.

The excerpt is the one thing of the provider's that is logged: "unknown model" must tell an
operator a misconfiguration from an outage. It is read from the answer's structure: its
`error.message` (with `type`, `code` and `param` when given as a string or a number; nested
values are never read), a FastAPI `detail` as each error's `type` and location (never its `msg`
or `input`: a 422 echoes what was sent there), else its text. Then, in this order:
1. each part is cut first (the message to MESSAGE_CHARS, a field to FIELD_CHARS), a word the
   cut splits dropped whole, so everything after works on a bounded text;
2. escapes are decoded (`unescaped`: percent-encoding, `\\xNN`, `\\uXXXX`, HTML entities), so
   the user's words are recognised however the server spelled them back;
3. control characters and runs of spaces are folded to one space, and the text is cut to
   ERROR_EXCERPT_CHARS, a split word again dropped (a name cut in two is no longer one);
4. every word of the user's (`Sent`) is replaced by WITHHELD, in the message and in the
   structured fields alike: a word that equals a word of a vocabulary term or contains one
   (of MIN_CONTAINED_CHARS or more: a two-letter Ge'ez name with a suffix), and, for the
   planner, a word that equals any word of the transcript or the screen. Words are compared
   as `core.text.fold` reads them (any case, look-alike letters, Ethiopic homophones);
5. our API key (when long enough to be a secret: a dummy like `x` masks nothing) and anything
   shaped like a key are masked;
6. what the markers lengthened is cut to ERROR_EXCERPT_CHARS again.
Every step is linear in what it reads (no pattern backtracks, and none is made per term), and
only the parsing of the body reads more than the bounded parts: a 1 MB body costs its parse.
"""

from __future__ import annotations

import html
import math
import re
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import orjson
import regex

from lisan.core.text import fold
from lisan.providers.base import (
    Outcome,
    ProviderBadAnswer,
    ProviderError,
    ProviderRefusedRequest,
    ProviderUnavailable,
)
from lisan.providers.http import Answer

_DEFAULT_RETRY_AFTER_S = 5
_MAX_RETRY_AFTER_S = 3600


@dataclass(frozen=True, slots=True)
class Sent:
    """The user's text a request carried, which its error answer must never put in a log:
    vocabulary `terms` (withheld wherever a word of the error equals or contains one of their
    words) and `texts` (a transcript, a screen: each of their words is withheld wherever the
    error quotes it, alone or not)."""

    terms: Sequence[str] = ()
    texts: Sequence[str] = ()


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
# A vocabulary word this long is withheld inside a longer word too ("ዳዊ" in "ዳዊት", a name with a
# case suffix); a shorter one only where a word equals it.
MIN_CONTAINED_CHARS = 2
UNESCAPE_PASSES = 3  # a percent-encoded entity, a JSON-escaped percent-encoding: one pass each
WITHHELD = "[withheld]"


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
    text = _Withholding(sent).apply(text)
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

# How a server may spell back what it was sent: percent-encoded or `\xNN` UTF-8 bytes, JSON's
# `\uXXXX` (surrogate pairs included), Python's `\UXXXXXXXX`, HTML's numeric and named
# entities. Each alternative is a run of fixed-size units or a bounded name, taken whole
# (possessive): one pass reads each character a bounded number of times.
_ESCAPED = re.compile(
    r"(?:%[0-9A-Fa-f]{2})++"
    r"|(?:\\x[0-9A-Fa-f]{2})++"
    r"|(?:\\u[0-9A-Fa-f]{4})++"
    r"|\\U[0-9A-Fa-f]{8}"
    r"|&(?:\#[0-9]{1,7}+|\#[xX][0-9A-Fa-f]{1,6}+|[A-Za-z][A-Za-z0-9]{1,31}+);?"
)


def unescaped(text: str) -> str:
    """`text` with every escape `_ESCAPED` knows decoded, again on the result while that
    changes it (an escape of an escape), at most UNESCAPE_PASSES times."""
    for _ in range(UNESCAPE_PASSES):
        decoded = _ESCAPED.sub(_decoded, text)
        if decoded == text:
            break
        text = decoded
    return text


def _decoded(escape: re.Match[str]) -> str:
    run = escape[0]
    if run[0] == "&":
        return html.unescape(run)
    if run[0] == "%":
        return bytes.fromhex(run.replace("%", "")).decode("utf-8", "replace")
    kind, digits = run[1], run.replace("\\" + run[1], "")
    if kind == "x":
        return bytes.fromhex(digits).decode("utf-8", "replace")
    if kind == "u":
        return bytes.fromhex(digits).decode("utf-16-be", "replace")
    code = int(digits, 16)
    return chr(code) if code <= sys.maxunicode else run


# A word of an error, read whole: letters, digits and marks, and what renders as nothing inside
# them (a zero-width space or a soft hyphen never splits a name into pieces no rule knows).
_WORD = regex.compile(r"[\w\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]++")
_WITHHELD_RUN = re.compile(f"{re.escape(WITHHELD)}(?: {re.escape(WITHHELD)})++")


class _Withholding:
    """Which words of an error answer are the user's (`Sent`), read as `core.text.fold` reads
    text (any case, look-alike letters, Ethiopic homophones). The sent words are a set and the
    error's words are looked up in it; a word is searched for vocabulary words inside it by
    the lengths those have, each of its slices of such a length looked up in a set: no
    pattern per term, and the work is the error's (bounded) length times those lengths."""

    def __init__(self, sent: Sent) -> None:
        words: set[str] = set()
        contained: set[str] = set()
        for term in sent.terms:
            folded = fold(term).split()
            words.update(folded)
            contained.update(w for w in (*folded, "".join(folded)) if len(w) >= MIN_CONTAINED_CHARS)
        for text in sent.texts:
            words.update(fold(text).split())
        self._words = frozenset(words)
        self._contained = frozenset(contained)
        self._lengths = sorted({len(word) for word in contained})

    def apply(self, text: str) -> str:
        """`text` with every word of the user's replaced by WITHHELD, one marker for a run of
        them (punctuation around a word stays: "body.prompt.[withheld]")."""
        if not self._words:
            return text
        text = _WORD.sub(lambda word: WITHHELD if self._says(word[0]) else word[0], text)
        return _WITHHELD_RUN.sub(WITHHELD, text)

    def _says(self, chunk: str) -> bool:
        words = fold(chunk).split()
        if any(word in self._words for word in words):
            return True
        joined = "".join(words)
        return any(
            joined[start : start + length] in self._contained
            for length in self._lengths
            if length <= len(joined)
            for start in range(len(joined) - length + 1)
        )


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
