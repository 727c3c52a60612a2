"""LISAN_PROVIDER=local (the default): speech to a plan on this machine, with no network.

The transcriber listens with a closed grammar built for the request (`grammar`, from the
command words of `vocabulary`) in a bounded pool of pocketsphinx decoders (`pool`, each a
`recognizer`); its confidence compares the grammar's path with a free phone loop
(`confidence`), so the pipeline's confidence gate REPROMPTs speech the grammar was forced onto.
The planner is deterministic (`planner`, naming nodes by whole words: `labels`). What it
covers: docs/offline-provider.md.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Sequence
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import (
    Expected,
    Outcome,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
    Transcript,
)
from lisan.providers.local import planner
from lisan.providers.local.pool import DecoderPool, PoolFull, Request
from lisan.providers.local.recognizer import Heard
from lisan.providers.local.whisper import weights

log = logging.getLogger("lisan.providers.local")

QUEUE_PER_WORKER = 8  # decodes that may wait per worker process before a 503
BUSY = "the offline speech recogniser is busy; try again shortly"
BUSY_RETRY_AFTER_S = 1


class LocalProvider:
    keeps_screens_local = True  # nothing leaves this machine

    def __init__(self, settings: Settings, *, workers: int | None = None) -> None:
        self._settings = settings
        count = workers or max(1, os.cpu_count() or 1)
        self._pool = DecoderPool(count, count * QUEUE_PER_WORKER)
        # The second ear's weights, checked once here so the server's log says it at start; the
        # workers load them again (a process of their own).
        self._unavailable = weights.problem()
        if self._unavailable is not None:
            log.error(
                "offline scorer unavailable: every command is asked again",
                extra={"error": self._unavailable},
            )

    async def transcribe(self, pcm: bytes, language: Locale, expected: Expected) -> Transcript:
        if self._unavailable is not None:
            return Transcript("", 0.0)  # nothing heard: the pipeline asks again (REPROMPT)
        try:
            async with asyncio.timeout(self._settings.transcribe_timeout_s):
                request = request_for(expected, language, self._settings.confidence_threshold)
                heard = await self._pool.hear(pcm, request)
        except TimeoutError:
            raise ProviderTimeout("transcribe: the offline decode took too long") from None
        except PoolFull as full:
            raise ProviderUnavailable(
                str(full), retry_after_s=BUSY_RETRY_AFTER_S, public_message=BUSY, kind=Outcome.BUSY
            ) from None
        except BrokenProcessPool:
            raise ProviderUnavailable(
                "a decoder process died", retry_after_s=BUSY_RETRY_AFTER_S, public_message=BUSY
            ) from None
        except Exception as failed:  # a decode that failed in its process: a clean 503, logged
            log.exception("offline decode failed")
            raise ProviderUnavailable(
                f"the offline decode failed: {type(failed).__name__}",
                retry_after_s=BUSY_RETRY_AFTER_S,
                public_message=BUSY,
            ) from None
        return transcript_of(heard)

    async def plan(
        self, transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]
    ) -> Any:
        return planner.plan(transcript, screen, language, apps)

    async def aclose(self) -> None:
        self._pool.close()


def request_for(expected: Expected, language: Locale, refuse_below: float) -> Request:
    """What a worker process is sent (pickled: plain lists). Only English has dictation; the
    confidence gate's threshold says when Amharic speech is worth a check for dictation."""
    return Request(
        expected=Expected(list(expected.vocabulary), expected.screen, list(expected.apps)),
        language=language,
        dictation=language is Locale.EN_US,
        refuse_below=refuse_below,
    )


def transcript_of(heard: Heard) -> Transcript:
    """The pipeline's transcript of what a decode heard. A dictated one has no score (it is
    weak), so the pipeline reads it back before anything runs."""
    return Transcript(heard.text, heard.confidence)
