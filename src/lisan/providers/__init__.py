"""Voice providers: speech to text and text to an action plan (LISAN_PROVIDER)."""

from __future__ import annotations

from urllib.parse import urlsplit

from lisan.core.settings import ProviderName, Settings
from lisan.providers.base import VoiceProvider
from lisan.providers.breaker import Breakers
from lisan.providers.http import ProviderHTTP
from lisan.providers.local import LocalProvider
from lisan.providers.openai import OpenAIProvider


def circuit_name(settings: Settings, call: str) -> str:
    """A breaker's key: one circuit per provider call and endpoint, so the transcriber and the
    planner fail apart, and two services (or one moved to another endpoint) sharing a Redis
    never trip each other's circuit."""
    if settings.provider is ProviderName.OPENAI:
        base_url = (
            settings.transcribe_endpoint if call == "transcribe" else settings.plan_endpoint
        ).base_url
        endpoint = urlsplit(base_url)
        return f"lisan.voice-provider:openai:{call}:{endpoint.netloc}{endpoint.path}"
    return f"lisan.voice-provider:{settings.provider.value}:{call}"


def create_breakers(settings: Settings) -> Breakers:
    """The provider calls' circuit breakers, shared through LISAN_REDIS_URL when set."""
    return Breakers.for_circuits(
        settings.redis_url,
        transcribe=circuit_name(settings, "transcribe"),
        plan=circuit_name(settings, "plan"),
    )


def create_provider(settings: Settings, http: ProviderHTTP, breakers: Breakers) -> VoiceProvider:
    """The provider LISAN_PROVIDER names. `http` (one per process) and `breakers` belong to the
    caller, which closes them."""
    if settings.provider is ProviderName.OPENAI:
        return OpenAIProvider(settings, http, breakers)
    return LocalProvider(settings)
