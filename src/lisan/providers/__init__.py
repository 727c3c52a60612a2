"""Voice providers: speech to text and text to an action plan (LISAN_PROVIDER)."""

from __future__ import annotations

import httpx

from lisan.core.settings import ProviderName, Settings
from lisan.providers.base import VoiceProvider
from lisan.providers.breaker import ProviderBreaker
from lisan.providers.local import LocalProvider
from lisan.providers.openai import OpenAIProvider


def circuit_name(settings: Settings) -> str:
    """The breaker's key: one circuit per provider endpoint, so two services (or one service
    moved to another endpoint) sharing a Redis never trip each other's circuit."""
    if settings.provider is ProviderName.OPENAI:
        endpoint = settings.openai_base_url
        return f"lisan.voice-provider:openai:{endpoint.host}:{endpoint.port}{endpoint.path}"
    return f"lisan.voice-provider:{settings.provider.value}"


def create_provider(
    settings: Settings, http: httpx.AsyncClient, breaker: ProviderBreaker
) -> VoiceProvider:
    """The provider LISAN_PROVIDER names. `http` (one per process) and `breaker` belong to the
    caller, which closes them."""
    if settings.provider is ProviderName.OPENAI:
        return OpenAIProvider(settings, http, breaker)
    return LocalProvider(settings)
