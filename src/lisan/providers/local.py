"""LISAN_PROVIDER=local: the offline provider (pocketsphinx) has not landed yet.

A deliberate placeholder until it does: every call answers ProviderUnavailable (503) with a
message saying how to get a working provider. Nothing else belongs here until then.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lisan.core.settings import Settings
from lisan.providers.base import ProviderUnavailable, Screen, Transcript
from lisan.users.models import Locale

NOT_AVAILABLE = "the offline speech provider is not available yet; set LISAN_PROVIDER=openai"
_RETRY_AFTER_S = 60


class LocalProvider:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    async def transcribe(
        self, pcm: bytes, language: Locale, vocabulary: Sequence[str]
    ) -> Transcript:
        raise ProviderUnavailable(
            NOT_AVAILABLE, retry_after_s=_RETRY_AFTER_S, public_message=NOT_AVAILABLE
        )

    async def plan(self, transcript: str, screen: Screen | None, language: Locale) -> Any:
        raise ProviderUnavailable(
            NOT_AVAILABLE, retry_after_s=_RETRY_AFTER_S, public_message=NOT_AVAILABLE
        )

    async def aclose(self) -> None:
        """Holds nothing."""
