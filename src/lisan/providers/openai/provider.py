"""The remote provider: transcription and planning on any OpenAI-compatible server, through
the app's shared HTTP client, behind its circuit breaker and our own bulkhead. Wire format:
docs/spec/design.md, "Provider wire format".

Nothing the user said reaches an exception message or a log: no audio, transcript,
vocabulary, screen or API key; logs carry status codes and timings, and of a provider's error
answer a bounded excerpt (`errors.error_excerpt`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Sequence
from typing import Any

import orjson

from lisan.core.locale import Locale
from lisan.core.settings import Endpoint, Settings
from lisan.core.wav import wav_header
from lisan.providers.base import (
    Expected,
    Outcome,
    ProviderBadAnswer,
    ProviderRefusedRequest,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
    ServiceAtCapacity,
    Transcript,
)
from lisan.providers.breaker import Breakers
from lisan.providers.bulkhead import Bulkhead
from lisan.providers.http import AnswerTooLarge, PoolFull, ProviderHTTP, TransportFailed
from lisan.providers.multipart import FilePart, form_data
from lisan.providers.openai.errors import status_error
from lisan.providers.openai.planning import plan_from, plan_request
from lisan.providers.openai.transcription import (
    ConfidenceSource,
    transcript_from,
    transcription_form,
)
from lisan.providers.openai.withholding import Sent

# The package's name, which operators filter on (not this module's).
log = logging.getLogger("lisan.providers.openai")

_JSON = "application/json"
POOL_WAIT_S = 1.0  # longest wait for a free connection of our own pool


class OpenAIProvider:
    """Two calls, two failure domains: the transcriber and the planner each have their endpoint
    and key (`Settings.transcribe_endpoint`, `plan_endpoint`), their bulkhead and their
    circuit breaker.

    How the second call queues: a plan call waits for a planner slot behind other plan calls
    only, never behind transcriptions, and for up to LISAN_PLAN_TIMEOUT_S (at least the
    queue wait), the longest any call holding a slot can keep it: a command whose
    transcription succeeded is refused "busy" only when more plans wait ahead of it than
    the planner can finish in that time."""

    keeps_screens_local = False  # a remote server: an ungranted app's screen never reaches it

    def __init__(self, settings: Settings, http: ProviderHTTP, breakers: Breakers):
        self._settings = settings
        self._http = http
        self._breakers = breakers
        self._transcribe = settings.transcribe_endpoint
        self._plan = settings.plan_endpoint
        self._transcribe_bulkhead = Bulkhead(
            settings.transcribe_max_concurrency or settings.provider_max_concurrency,
            settings.provider_queue_wait_s,
            user_share=settings.provider_max_per_user,
        )
        self._plan_bulkhead = Bulkhead(
            settings.plan_max_concurrency or settings.provider_max_concurrency,
            max(settings.provider_queue_wait_s, settings.plan_timeout_s),
            user_share=settings.provider_max_per_user,
        )
        self._confidence = ConfidenceSource(settings.openai_transcribe_confidence)

    async def transcribe(self, pcm: bytes, language: Locale, expected: Expected) -> Transcript:
        """The confidence mode (`ConfidenceSource`) may ask for the same recording twice."""
        audio = FilePart("file", "audio.wav", "audio/wav", (wav_header(len(pcm)), pcm))
        source, vocabulary = self._confidence, expected.vocabulary
        asked_segments = source.asks_for_segments
        try:
            answer = await self._transcribe_once(audio, language, vocabulary, asked_segments)
        except (ProviderBadAnswer, ProviderRefusedRequest) as refused:
            if refused.kind not in {"4xx", "config_error"} or not source.refused_segments():
                raise
            log.info(
                "the transcriber refuses verbose_json: asking with the design's request",
                extra={"operation": "transcribe"},
            )
            answer = await self._transcribe_once(audio, language, vocabulary, False)
        if source.asks_again(answer, asked_segments=asked_segments):
            log.info(
                "the transcriber gives no logprobs: asking it for verbose_json segments",
                extra={"operation": "transcribe"},
            )
            answer = await self._transcribe_once(audio, language, vocabulary, True)
            source.served_by_segments(answer)
        return transcript_from(answer)

    async def _transcribe_once(
        self, audio: FilePart, language: Locale, vocabulary: Sequence[str], segments: bool
    ) -> Any:
        model = self._settings.openai_transcribe_model
        form = transcription_form(model, language, vocabulary, segments=segments)
        body, content_type = form_data(form, audio)

        async def call() -> Any:
            return await self._post(
                "transcribe",
                self._transcribe,
                "/audio/transcriptions",
                self._settings.transcribe_timeout_s,
                body,
                content_type,
                sent=Sent(terms=vocabulary),
            )

        async with self._transcribe_bulkhead.slot("transcribe"):  # refused here: no breaker
            return await self._breakers.transcribe.call(call)

    async def plan(
        self, transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]
    ) -> Any:
        """`apps` is not sent: the remote planner is not told which apps the user has."""
        content = plan_request(
            self._settings.openai_plan_model,
            transcript,
            screen,
            language,
            form=self._settings.openai_plan_format,
            max_tokens=self._settings.plan_max_tokens,
        )
        # What a planner's error may echo, any one word of it: the transcript and the screen.
        sent = Sent(texts=(transcript, screen.view_tree) if screen else (transcript,))

        async def call() -> Any:
            return await self._post(
                "plan",
                self._plan,
                "/chat/completions",
                self._settings.plan_timeout_s,
                content,
                _JSON,
                sent=sent,
            )

        async with self._plan_bulkhead.slot("plan"):
            answer = await self._breakers.plan.call(call)
        return plan_from(answer)

    async def aclose(self) -> None:
        """Nothing to release: the HTTP client and the breaker belong to the app."""

    async def _post(
        self,
        operation: str,
        endpoint: Endpoint,
        path: str,
        timeout_s: float,
        body: bytes,
        content_type: str,
        *,
        sent: Sent,
    ) -> Any:
        """POST and decode the JSON answer, mapping every failure to a ProviderError. `sent` is
        the user text the request carried: no word of it in an error answer is logged."""
        fields: dict[str, Any] = {"operation": operation}
        started = time.perf_counter()
        headers = {"Content-Type": content_type}
        if endpoint.api_key:
            headers["Authorization"] = f"Bearer {endpoint.api_key}"
        try:
            async with asyncio.timeout(timeout_s):
                answer = await self._http.post(
                    endpoint.base_url + path,
                    body=body,
                    headers=headers,
                    # A short wait for our own pool: past it we are the bottleneck, and the
                    # answer is a quick 503 rather than a provider timeout.
                    pool_wait_s=min(POOL_WAIT_S, timeout_s / 2),
                    limit=MAX_ANSWER_BYTES,
                )
        except AnswerTooLarge:
            _log_failure(fields, started, outcome="answer too large", limit=MAX_ANSWER_BYTES)
            raise ProviderBadAnswer(
                f"{operation}: an answer past {MAX_ANSWER_BYTES} bytes"
            ) from None
        except PoolFull:
            _log_failure(fields, started, outcome="no free connection")
            raise ServiceAtCapacity(f"{operation}: no free provider connection") from None
        except TimeoutError:
            _log_failure(fields, started, outcome="timeout")
            raise ProviderTimeout(f"{operation}: no answer within {timeout_s:g} s") from None
        except TransportFailed as exc:
            _log_failure(fields, started, outcome="connection error", error=str(exc))
            raise ProviderUnavailable(f"{operation}: {exc}", kind=Outcome.CONNECTION) from None
        fields["status"] = answer.status
        fields["duration_ms"] = _elapsed_ms(started)
        failure = status_error(operation, answer, endpoint.api_key, sent)
        if failure is not None:
            error, more = failure
            log.warning("provider call failed", extra={**fields, **more})
            raise error
        log.debug("provider call", extra=fields)
        try:
            return orjson.loads(answer.content)
        except orjson.JSONDecodeError:
            raise ProviderBadAnswer(f"{operation}: the answer is not JSON") from None


# The largest answer read: a transcript of 15 s or a plan of 20 steps is a few KB, a verbose_json
# answer with its segments some tens; past this the answer is not read on (and never parsed).
MAX_ANSWER_BYTES = 256 * 1024


def _elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def _log_failure(fields: dict[str, Any], started: float, **more: Any) -> None:
    fields = {**fields, **more, "duration_ms": _elapsed_ms(started)}
    log.warning("provider call failed", extra=fields)
