"""The transcriber and the planner are two failure domains: each call has its own endpoint and
key (the shared ones by default), its own bulkhead and its own circuit breaker, and the
breaker's gauge says each circuit's state as it is."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from prometheus_client import REGISTRY

from lisan.core.locale import Locale
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
    """LISAN_OPENAI_TRANSCRIBE_BASE_URL moves transcriptions; plans stay on the shared one."""
    provider = make_provider(openai_transcribe_base_url=fake_planner.base_url)
    await _transcribe(provider)
    await _plan(provider)

    assert (fake_planner.transcriptions.calls, fake_planner.completions.calls) == (1, 0)
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (0, 1)
    assert fake_planner.transcriptions.last.headers["authorization"] == f"Bearer {API_KEY}"


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
