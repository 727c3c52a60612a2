"""Any OpenAI-compatible server: transcription (`/audio/transcriptions`) and planning with a
strict JSON schema (`/chat/completions`). Wire format: docs/spec/design.md, on providers; for a
Whisper-style server, which ignores `include[]=logprobs`, `verbose_json` instead
(LISAN_OPENAI_TRANSCRIBE_CONFIDENCE): its segments give the confidence, and it reports the
language it heard and how likely there was no speech (`transcript_from`).

Nothing the user said reaches an exception message or a log: no audio, transcript,
vocabulary, screen or API key; logs carry status codes and timings. A provider's error answer
(a 4xx or 5xx) is the one thing of the provider's that is logged, as a bounded excerpt
(`error_excerpt`): "unknown model" must tell an operator a misconfiguration from an outage.
Its `error.message` when it has one, else its text; control characters and runs of spaces
folded, our API key and anything shaped like one masked, at most ERROR_EXCERPT_CHARS.
"""

from __future__ import annotations

import asyncio
import logging
import math
import re
import statistics
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

import httpx
import orjson

from lisan.core.locale import Locale
from lisan.core.settings import Settings, TranscribeConfidence
from lisan.core.wav import wav_header
from lisan.providers.base import (
    Expected,
    ProviderBadAnswer,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
    ServiceAtCapacity,
    Transcript,
)
from lisan.providers.breaker import ProviderBreaker
from lisan.providers.bulkhead import Bulkhead
from lisan.providers.multipart import FilePart, form_data
from lisan.providers.prompts import SYSTEM_PROMPT, user_message

log = logging.getLogger(__name__)

# The design's request, and a Whisper-style server's (OpenAI's whisper-1, faster-whisper-server):
# its `verbose_json` carries per-segment scores and the language heard, never token logprobs.
_LOGPROBS_FORM = {"response_format": "json", "include[]": "logprobs"}
_SEGMENTS_FORM = {"response_format": "verbose_json"}
_JSON = "application/json"
_DEFAULT_RETRY_AFTER_S = 5
_MAX_RETRY_AFTER_S = 3600
POOL_WAIT_S = 1.0  # longest wait for a free connection of our own pool

_NULLABLE_STRING = {"type": ["string", "null"]}
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "package_name": {"type": "string"},
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "action_type": {
                        "type": "string",
                        "enum": ["TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"],
                    },
                    "target_node_id": _NULLABLE_STRING,
                    "payload": _NULLABLE_STRING,
                    "is_destructive": {"type": "boolean"},
                },
                "required": ["action_type", "target_node_id", "payload", "is_destructive"],
                "additionalProperties": False,
            },
        },
        "needs_confirmation": {"type": "boolean"},
        "speech_response_text": _NULLABLE_STRING,
    },
    "required": ["package_name", "steps", "needs_confirmation", "speech_response_text"],
    "additionalProperties": False,
}
_RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "action_plan", "strict": True, "schema": PLAN_SCHEMA},
}


class OpenAIProvider:
    keeps_screens_local = False  # a remote server: an ungranted app's screen never reaches it

    def __init__(self, settings: Settings, http: httpx.AsyncClient, breaker: ProviderBreaker):
        self._settings = settings
        self._http = http
        self._breaker = breaker
        self._bulkhead = Bulkhead(settings.provider_max_concurrency, settings.provider_queue_wait_s)
        self._base_url = str(settings.openai_base_url).rstrip("/")
        mode = settings.openai_transcribe_confidence
        self._asks_for_segments = mode is TranscribeConfidence.SEGMENTS
        self._detects = mode is TranscribeConfidence.AUTO
        self._headers = (
            {"Authorization": f"Bearer {settings.openai_api_key}"}
            if settings.openai_api_key
            else {}
        )

    async def transcribe(self, pcm: bytes, language: Locale, expected: Expected) -> Transcript:
        """Only the vocabulary terms go with the audio (the prompt): the screen and the apps
        are not the transcriber's business. The confidence mode (`TranscribeConfidence`):
        in `auto`, the first answer with text but neither logprobs nor segments marks this
        endpoint as a Whisper-style server, and the same recording is asked again for
        `verbose_json`, as is every later one: once per process, so no command is planned
        ungated (that one command pays two calls, each with the whole timeout)."""
        audio = FilePart("file", "audio.wav", "audio/wav", (wav_header(len(pcm)), pcm))
        asked_segments = self._asks_for_segments
        answer = await self._transcribe_once(audio, language, expected.vocabulary, asked_segments)
        if not asked_segments and self._detects and gives_no_confidence(answer):
            self._asks_for_segments = True
            log.info(
                "the transcriber gives no logprobs: asking it for verbose_json segments",
                extra={"operation": "transcribe"},
            )
            answer = await self._transcribe_once(audio, language, expected.vocabulary, True)
        return transcript_from(answer)

    async def _transcribe_once(
        self, audio: FilePart, language: Locale, vocabulary: Sequence[str], segments: bool
    ) -> Any:
        form = {
            "model": self._settings.openai_transcribe_model,
            "language": language.language,
            **(_SEGMENTS_FORM if segments else _LOGPROBS_FORM),
        }
        if vocabulary:
            form["prompt"] = ", ".join(vocabulary)
        body, content_type = form_data(form, audio)

        async def call() -> Any:
            return await self._post(
                "transcribe",
                "/audio/transcriptions",
                self._settings.transcribe_timeout_s,
                body,
                content_type,
            )

        async with self._bulkhead.slot("transcribe"):  # refused here: the breaker never knows
            return await self._breaker.call(call)

    async def plan(
        self, transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]
    ) -> Any:
        """`apps` is not sent: the remote planner is not told which apps the user has."""
        body = {
            "model": self._settings.openai_plan_model,
            "messages": [
                {"role": "system", "content": SYSTEM_PROMPT},
                {
                    "role": "user",
                    "content": user_message(transcript, screen, language),
                },
            ],
            "response_format": _RESPONSE_FORMAT,
        }

        content = orjson.dumps(body)  # httpx's json= would use the slower stdlib json

        async def call() -> Any:
            return await self._post(
                "plan", "/chat/completions", self._settings.plan_timeout_s, content, _JSON
            )

        async with self._bulkhead.slot("plan"):
            answer = await self._breaker.call(call)
        return plan_from(answer)

    async def aclose(self) -> None:
        """Nothing to release: the HTTP client and the breaker belong to the app."""

    async def _post(
        self, operation: str, path: str, timeout_s: float, body: bytes, content_type: str
    ) -> Any:
        """POST and decode the JSON answer, mapping every failure to a ProviderError."""
        fields: dict[str, Any] = {"operation": operation}
        started = time.perf_counter()
        try:
            async with asyncio.timeout(timeout_s):
                response = await self._http.post(
                    self._base_url + path,
                    content=body,
                    headers={**self._headers, "Content-Type": content_type},
                    # A short wait for our own pool: past it we are the bottleneck, and the
                    # answer is a quick 503 rather than a provider timeout.
                    timeout=httpx.Timeout(timeout_s, pool=min(POOL_WAIT_S, timeout_s / 2)),
                )
        except httpx.PoolTimeout:
            _log_failure(fields, started, outcome="no free connection")
            raise ServiceAtCapacity(f"{operation}: no free provider connection") from None
        except (TimeoutError, httpx.TimeoutException):
            _log_failure(fields, started, outcome="timeout")
            raise ProviderTimeout(f"{operation}: no answer within {timeout_s:g} s") from None
        except httpx.TransportError as exc:
            _log_failure(fields, started, outcome="connection error", error=type(exc).__name__)
            raise ProviderUnavailable(
                f"{operation}: {type(exc).__name__}", kind="connection"
            ) from None
        fields["status"] = response.status_code
        fields["duration_ms"] = _elapsed_ms(started)
        _raise_for_status(operation, response, fields, self._settings.openai_api_key)
        log.debug("provider call", extra=fields)
        try:
            return orjson.loads(response.content)
        except orjson.JSONDecodeError:
            raise ProviderBadAnswer(f"{operation}: the answer is not JSON") from None


def transcript_from(answer: Any) -> Transcript:
    """The transcript and whatever the server says of it: confidence from token logprobs when
    it gives them, else from its segments (`segment_confidence`)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("text"), str):
        raise ProviderBadAnswer("transcribe: the answer has no text")
    segments = segments_from(answer.get("segments"))
    confidence = confidence_from(answer.get("logprobs"))
    if confidence is None:
        confidence = segment_confidence(segments)
    return Transcript(
        text=answer["text"],
        confidence=confidence,
        language=language_from(answer.get("language")),
        no_speech_prob=_weighted_mean(segments, "no_speech_prob"),
        compression_ratio=max(
            (s.compression_ratio for s in segments if s.compression_ratio is not None),
            default=None,
        ),
    )


def gives_no_confidence(answer: Any) -> bool:
    """A transcript (some text) with neither logprobs nor segments: the server ignored
    `include[]=logprobs`, as Whisper-style servers do."""
    if not isinstance(answer, dict):
        return False
    text = answer.get("text")
    return (
        isinstance(text, str)
        and bool(text.strip())
        and not answer.get("logprobs")
        and answer.get("segments") is None
    )


@dataclass(frozen=True, slots=True)
class Segment:
    """The scores of one `verbose_json` segment (each None when the server leaves it out)."""

    weight: float  # its duration in seconds (at least MIN_SEGMENT_WEIGHT_S)
    avg_logprob: float | None
    no_speech_prob: float | None
    compression_ratio: float | None


MIN_SEGMENT_WEIGHT_S = 0.05
MAX_SEGMENTS = 512


def segments_from(raw: Any) -> list[Segment]:
    if raw is None:
        return []
    if not isinstance(raw, list) or len(raw) > MAX_SEGMENTS:
        raise ProviderBadAnswer("transcribe: segments is not a list")
    segments = []
    for item in raw:
        if not isinstance(item, dict):
            raise ProviderBadAnswer("transcribe: a segment is not an object")
        start, end = _score(item, "start"), _score(item, "end")
        duration = end - start if start is not None and end is not None else 1.0
        segments.append(
            Segment(
                weight=max(MIN_SEGMENT_WEIGHT_S, duration),
                avg_logprob=_score(item, "avg_logprob"),
                no_speech_prob=_score(item, "no_speech_prob"),
                compression_ratio=_score(item, "compression_ratio"),
            )
        )
    return segments


# Platt scaling of the segments' mean avg_logprob (weighted by duration) into the probability
# that the transcript is right, fitted by `python -m bench.interop --calibrate` on
# faster-whisper-server 0.0.3 with Whisper tiny.en (docs/remote-servers.md),
# its offset lowered by ln 2 so that LISAN_CONFIDENCE_THRESHOLD's 0.5 is where P(right) is 2/3:
# a wrong transcript planned counts twice a right one asked again. exp(avg_logprob) itself is
# no probability: right transcripts there scored 0.25 to 0.76.
SEGMENT_SLOPE = 4.54
SEGMENT_OFFSET = 3.57
SEGMENT_LOGPROB_FLOOR = -50.0


def segment_confidence(segments: Sequence[Segment]) -> float | None:
    mean_logprob = _weighted_mean(segments, "avg_logprob")
    if mean_logprob is None:
        return None
    # At most 0 (a provider's rounding), and past SEGMENT_LOGPROB_FLOOR the answer is 0 anyway:
    # clamped there, exp() cannot overflow (-1e308 would have: a 500).
    mean_logprob = max(SEGMENT_LOGPROB_FLOOR, min(0.0, mean_logprob))
    return 1.0 / (1.0 + math.exp(-(SEGMENT_SLOPE * mean_logprob + SEGMENT_OFFSET)))


def _weighted_mean(segments: Sequence[Segment], name: str) -> float | None:
    total = weighted = 0.0
    for segment in segments:
        value: float | None = getattr(segment, name)
        if value is not None:
            total += segment.weight
            weighted += segment.weight * value
    return weighted / total if total else None


def _score(segment: dict[str, Any], name: str) -> float | None:
    value = segment.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ProviderBadAnswer(f"transcribe: a segment's {name} is not a number")
    return float(value)


# OpenAI's whisper-1 names the language ("english"); faster-whisper-server gives its code.
_LANGUAGE_NAMES = {"english": "en", "amharic": "am"}
MAX_LANGUAGE_CHARS = 32


def language_from(raw: Any) -> str | None:
    """The language the server heard, as an ISO 639-1 code when it is one of ours."""
    if raw is None:
        return None
    if not isinstance(raw, str):
        raise ProviderBadAnswer("transcribe: language is not a string")
    language = raw.strip().lower()[:MAX_LANGUAGE_CHARS]
    return _LANGUAGE_NAMES.get(language, language) or None


LOGPROB_FLOOR = -1000.0


def confidence_from(logprobs: Any) -> float | None:
    """exp(mean logprob) of a non-empty list; no score without one."""
    if logprobs is None or logprobs == []:
        return None
    if not isinstance(logprobs, list):
        raise ProviderBadAnswer("transcribe: logprobs is not a list")
    # A log probability is at most 0 (clamp a provider's rounding), and below LOGPROB_FLOOR the
    # probability is 0 anyway: clamped there, no sum can overflow (-1e308 twice did: a 500).
    values = [min(0.0, max(LOGPROB_FLOOR, _logprob(item))) for item in logprobs]
    return math.exp(statistics.fmean(values))


def _logprob(item: Any) -> float:
    value = item.get("logprob") if isinstance(item, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        raise ProviderBadAnswer("transcribe: a logprob is not a number")
    return float(value)


def plan_from(answer: Any) -> Any:
    """The plan inside a chat completion: whatever `choices[0].message.content` parses to."""
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ProviderBadAnswer("plan: the answer has no choices[0].message.content") from None
    if not isinstance(content, str):
        raise ProviderBadAnswer("plan: choices[0].message.content is not a string")
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        raise ProviderBadAnswer("plan: the content is not JSON") from None


def _raise_for_status(
    operation: str, response: httpx.Response, fields: dict[str, Any], api_key: str | None
) -> None:
    status = response.status_code
    if 200 <= status < 300:
        return
    fields = {**fields, "error_excerpt": error_excerpt(response.content, api_key)}
    if status == 429 or status >= 500:
        retry_after_s = retry_after_seconds(response.headers)
        kind = "429" if status == 429 else "5xx"
        extra = {**fields, "kind": kind, "retry_after_s": retry_after_s}
        log.warning("provider call failed", extra=extra)
        raise ProviderUnavailable(
            f"{operation}: HTTP {status}", retry_after_s=retry_after_s, kind=kind
        )
    log.warning("provider call failed", extra={**fields, "kind": "4xx"})
    raise ProviderBadAnswer(f"{operation}: HTTP {status}", kind="4xx")


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


def _elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def _log_failure(fields: dict[str, Any], started: float, **more: Any) -> None:
    fields = {**fields, **more, "duration_ms": _elapsed_ms(started)}
    log.warning("provider call failed", extra=fields)
