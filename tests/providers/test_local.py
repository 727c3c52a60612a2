from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from lisan.core.settings import Settings
from lisan.providers import create_provider
from lisan.providers.base import ProviderUnavailable, Screen
from lisan.providers.breaker import ProviderBreaker
from lisan.providers.local import LocalProvider
from lisan.providers.openai import OpenAIProvider
from lisan.users.models import Locale
from tests.providers.conftest import PCM


def test_create_provider_follows_lisan_provider(
    settings_factory: Callable[..., Settings], http: httpx.AsyncClient
) -> None:
    breaker = ProviderBreaker(None)
    assert isinstance(create_provider(settings_factory(), http, breaker), LocalProvider)
    openai = create_provider(settings_factory(provider="openai"), http, breaker)
    assert isinstance(openai, OpenAIProvider)


async def test_local_provider_says_it_is_not_available_yet(
    settings_factory: Callable[..., Settings],
) -> None:
    provider = LocalProvider(settings_factory())
    message = "the offline speech provider is not available yet; set LISAN_PROVIDER=openai"
    with pytest.raises(ProviderUnavailable, match=message) as transcribing:
        await provider.transcribe(PCM, Locale.AM_ET, [])
    with pytest.raises(ProviderUnavailable, match=message) as planning:
        await provider.plan("go back", Screen("", ""), Locale.EN_US)
    assert transcribing.value.retry_after_s == planning.value.retry_after_s == 60
    await provider.aclose()
