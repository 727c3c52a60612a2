from __future__ import annotations

from collections.abc import Callable

from lisan.core.settings import Settings
from lisan.providers import create_provider
from lisan.providers.breaker import Breakers
from lisan.providers.http import ProviderHTTP
from lisan.providers.local import LocalProvider
from lisan.providers.openai import OpenAIProvider


def test_create_provider_follows_lisan_provider(
    settings_factory: Callable[..., Settings], http: ProviderHTTP
) -> None:
    breakers = Breakers.for_circuits(None, transcribe="t", plan="p")
    assert isinstance(create_provider(settings_factory(), http, breakers), LocalProvider)
    openai = create_provider(settings_factory(provider="openai"), http, breakers)
    assert isinstance(openai, OpenAIProvider)
