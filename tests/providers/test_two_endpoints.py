"""The transcriber and the planner are two failure domains: each call has its own endpoint and
key (the shared ones by default), its own bulkhead and its own circuit breaker, and the
breaker's gauge says each circuit's state as it is. The shared key (LISAN_OPENAI_API_KEY) is
sent only to the origin of the shared URL (scheme, host and port, as an HTTP client keeps
`Authorization` across a redirect): a call moved to another server gets its own key, or none."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest
from prometheus_client import REGISTRY

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import Expected, ProviderUnavailable, Screen, ServiceAtCapacity
from lisan.providers.breaker import ProviderBreaker
from lisan.providers.openai import OpenAIProvider
from lisan.testing.openai_script import DEFAULT_TRANSCRIPTION, Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.provider import API_KEY, PCM, MakeProvider

PLAN_KEY = "sk-plan-key-not-a-real-one"


async def _transcribe(provider: OpenAIProvider) -> Any:
    return await provider.transcribe(PCM, Locale.EN_US, Expected([], None, []))


async def _plan(provider: OpenAIProvider) -> Any:
    return await provider.plan("open telegram", Screen("", ""), Locale.EN_US, [])


def _breaker_open(call: str) -> float | None:
    return REGISTRY.get_sample_value("lisan_provider_breaker_open", {"call": call})


# --- endpoints ---------------------------------------------------------------------------------


async def test_each_call_goes_to_its_own_server_with_its_own_key(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, fake_planner: FakeOpenAI
) -> None:
    """A planner of its own (LISAN_OPENAI_PLAN_BASE_URL, _API_KEY) gets every plan request and
    its key; the transcriber keeps the shared endpoint and key."""
    provider = make_provider(
        openai_plan_base_url=fake_planner.base_url, openai_plan_api_key=PLAN_KEY
    )
    await _transcribe(provider)
    await _plan(provider)

    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 0)
    assert (fake_planner.transcriptions.calls, fake_planner.completions.calls) == (0, 1)
    assert fake_openai.transcriptions.last.headers["authorization"] == f"Bearer {API_KEY}"
    assert fake_planner.completions.last.headers["authorization"] == f"Bearer {PLAN_KEY}"


async def test_a_transcriber_of_its_own_takes_transcriptions_only(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, fake_planner: FakeOpenAI
) -> None:
    """LISAN_OPENAI_TRANSCRIBE_BASE_URL moves transcriptions, with the transcriber's own key;
    plans stay on the shared one, with the shared key."""
    provider = make_provider(
        openai_transcribe_base_url=fake_planner.base_url, openai_transcribe_api_key=PLAN_KEY
    )
    await _transcribe(provider)
    await _plan(provider)

    assert (fake_planner.transcriptions.calls, fake_planner.completions.calls) == (1, 0)
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (0, 1)
    assert fake_planner.transcriptions.last.headers["authorization"] == f"Bearer {PLAN_KEY}"
    assert fake_openai.completions.last.headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize("moved", ["transcribe", "plan"])
async def test_a_call_moved_to_another_server_without_a_key_of_its_own_sends_none(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, fake_planner: FakeOpenAI, moved: str
) -> None:
    """The shared key is the shared server's: a transcriber or a planner moved to another
    server (here another port of the same host) without its own key sends no Authorization
    at all, while the call left on the shared server still sends the shared key."""
    provider = make_provider(**{f"openai_{moved}_base_url": fake_planner.base_url})
    await _transcribe(provider)
    await _plan(provider)

    other, shared = (
        (fake_planner.transcriptions, fake_openai.completions)
        if moved == "transcribe"
        else (fake_planner.completions, fake_openai.transcriptions)
    )
    assert other.calls == 1
    assert "authorization" not in other.last.headers
    assert shared.last.headers["authorization"] == f"Bearer {API_KEY}"


async def test_a_call_on_the_shared_origin_under_another_path_keeps_the_shared_key(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """Same scheme, host and port, another path: the shared server still, and its key."""
    provider = make_provider(openai_plan_base_url=fake_openai.base_url + "/v1")
    await _plan(provider)
    assert fake_openai.completions.last.path == "/v1/chat/completions"
    assert fake_openai.completions.last.headers["authorization"] == f"Bearer {API_KEY}"


@pytest.mark.parametrize(
    ("planner", "gets_the_key"),
    [
        ("https://API.openai.com:443/v2", True),
        ("http://api.openai.com/v1", False),
        ("https://api.openai.com:8443/v1", False),
        ("https://api.openai.com.example.net/v1", False),
        ("https://planner.example.net/v1", False),
    ],
    ids=["same origin", "another scheme", "another port", "a longer host", "another host"],
)
def test_the_shared_key_goes_to_the_shared_urls_origin_only(
    settings_factory: Callable[..., Settings], planner: str, gets_the_key: bool
) -> None:
    """Origins are compared as URLs, not as text: a host in capitals or a default port
    written out is the same origin; a scheme, a port or a host of its own is another."""
    settings = settings_factory(
        openai_base_url="https://api.openai.com/v1", openai_api_key=API_KEY,
        openai_plan_base_url=planner,
    )  # fmt: skip
    assert settings.plan_endpoint.api_key == (API_KEY if gets_the_key else None)
    assert settings.transcribe_endpoint.api_key == API_KEY


async def test_an_empty_key_of_its_own_sends_no_key(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, fake_planner: FakeOpenAI
) -> None:
    """A local planner beside OpenAI's transcriber must not receive the OpenAI key: an empty
    LISAN_OPENAI_PLAN_API_KEY sends none."""
    provider = make_provider(openai_plan_base_url=fake_planner.base_url, openai_plan_api_key="")
    await _plan(provider)
    assert "authorization" not in fake_planner.completions.last.headers


# --- bulkheads ---------------------------------------------------------------------------------


async def test_a_plan_never_waits_behind_transcriptions(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """With the transcriber's one slot held by a slow transcription, a plan goes at once."""
    fake_openai.transcriptions.default = Answer.json(DEFAULT_TRANSCRIPTION, delay_s=1.0)
    provider = make_provider(
        transcribe_max_concurrency=1, plan_max_concurrency=1, provider_queue_wait_s=0.2
    )
    slow = asyncio.create_task(_transcribe(provider))
    await asyncio.sleep(0.1)
    started = time.perf_counter()
    assert await _plan(provider) is not None
    assert time.perf_counter() - started < 0.5
    with pytest.raises(ServiceAtCapacity):  # the transcriber's own bulkhead is still full
        await _transcribe(provider)
    await slow


async def test_a_plan_waits_for_a_planner_slot_as_long_as_a_plan_may_take(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """A command whose transcription succeeded waits for a planner slot up to the plan timeout,
    not the short queue wait: the slot's holder frees it within that time."""
    plan = {"package_name": "", "steps": [{"action_type": "BACK"}], "needs_confirmation": False}
    fake_openai.completions.default = Answer.plan(plan, delay_s=0.6)
    provider = make_provider(plan_max_concurrency=1, provider_queue_wait_s=0.1, plan_timeout_s=2)
    results = await asyncio.gather(_plan(provider), _plan(provider))
    assert list(results) == [plan, plan]
    assert fake_openai.completions.calls == 2


def test_each_bulkhead_is_sized_by_its_own_setting_else_the_shared_one(
    make_provider: MakeProvider,
) -> None:
    """LISAN_TRANSCRIBE_MAX_CONCURRENCY and LISAN_PLAN_MAX_CONCURRENCY, each falling back to
    LISAN_PROVIDER_MAX_CONCURRENCY."""
    provider = make_provider(provider_max_concurrency=7, plan_max_concurrency=2)
    assert provider._transcribe_bulkhead.limit == 7
    assert provider._plan_bulkhead.limit == 2


# --- breakers and their gauge ------------------------------------------------------------------


async def test_the_gauge_stays_open_through_a_failed_probe_and_closes_on_a_good_one(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """lisan_provider_breaker_open{call} is 1 from the failure that opens the circuit, stays 1
    while half-open probes fail (a probe let through is no sign of health), and is 0 only
    once a probe succeeds; the other call's circuit reads 0 throughout."""
    plan_breaker = ProviderBreaker(None, call="plan", threshold=2, ttl_s=0.3)
    provider = make_provider(plan_breaker=plan_breaker)
    fake_openai.completions.default = Answer.error(503)
    for _ in range(2):
        with pytest.raises(ProviderUnavailable):
            await _plan(provider)
    assert _breaker_open("plan") == 1

    await asyncio.sleep(0.4)
    with pytest.raises(ProviderUnavailable):  # the probe goes out and fails
        await _plan(provider)
    assert _breaker_open("plan") == 1
    assert _breaker_open("transcribe") == 0

    await asyncio.sleep(0.4)
    fake_openai.completions.default = Answer.plan({"package_name": "", "steps": []})
    await _plan(provider)
    assert _breaker_open("plan") == 0
