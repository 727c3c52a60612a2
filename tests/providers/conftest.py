from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest

from lisan.core.settings import Settings
from lisan.providers.breaker import ProviderBreaker
from lisan.providers.openai import OpenAIProvider
from tests.fakes.openai_server import FakeOpenAI

API_KEY = "sk-test-0123456789abcdef"
# Every byte value, so the multipart framing must be byte-exact (CR, LF and '-' included).
PCM = bytes(range(256)) * 8

MakeProvider = Callable[..., OpenAIProvider]


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


@pytest.fixture
def make_provider(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, http: httpx.AsyncClient
) -> MakeProvider:
    """An OpenAIProvider on the fake server; keyword arguments override settings."""

    def make(breaker: ProviderBreaker | None = None, **overrides: Any) -> OpenAIProvider:
        values: dict[str, Any] = {
            "provider": "openai",
            "openai_base_url": fake_openai.base_url,
            "openai_api_key": API_KEY,
        }
        values.update(overrides)
        return OpenAIProvider(settings_factory(**values), http, breaker or ProviderBreaker(None))

    return make
