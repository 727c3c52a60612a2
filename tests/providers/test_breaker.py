from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as redis
from redis.exceptions import ConnectionError as RedisConnectionError

from lisan.core.locale import Locale
from lisan.providers import breaker as breaker_module
from lisan.providers import circuit_name
from lisan.providers.base import (
    Expected,
    ProviderBadAnswer,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
    ServiceAtCapacity,
)
from lisan.providers.breaker import Breakers, ProviderBreaker
from lisan.providers.breaker_redis import REDIS_TIMEOUT_S
from lisan.providers.http import ProviderHTTP
from lisan.providers.openai import OpenAIProvider
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import TRANSCRIPT
from tests.fixtures.private_servers import PrivateRedis
from tests.fixtures.provider import PCM, MakeProvider

DOWN_REDIS = "redis://127.0.0.1:1/15"


@pytest.fixture
async def breaker() -> AsyncIterator[ProviderBreaker]:
    breaker = ProviderBreaker(None, ttl_s=0.5)
    await breaker.start()
    yield breaker
    await breaker.aclose()


@pytest.fixture
async def clean_redis(redis_url: str) -> str:
    client = redis.Redis.from_url(redis_url)
    try:
        await client.flushdb()
    finally:
        await client.aclose()
    return redis_url


async def _transcribe(provider: OpenAIProvider) -> Any:
    return await provider.transcribe(PCM, Locale.EN_US, Expected([], None, []))


async def _plan(provider: OpenAIProvider) -> Any:
    return await provider.plan("open telegram", Screen("", ""), Locale.EN_US, [])


async def _cancel_a_slow_call(provider: OpenAIProvider, fake_openai: FakeOpenAI) -> None:
    """A call the client gives up on while the provider is still answering."""
    fake_openai.transcriptions.then(Answer.json({"text": "slow"}, delay_s=1.0))
    call = asyncio.create_task(_transcribe(provider))
    await asyncio.sleep(0.1)
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call


async def _fail(provider: OpenAIProvider, times: int) -> None:
    for _ in range(times):
        with pytest.raises(ProviderUnavailable):
            await _transcribe(provider)


async def test_five_failures_open_the_circuit_and_the_sixth_call_sends_nothing(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, breaker: ProviderBreaker
) -> None:
    provider = make_provider(breaker)
    fake_openai.transcriptions.default = Answer.error(503)
    await _fail(provider, 5)

    with pytest.raises(ProviderUnavailable) as raised:
        await _transcribe(provider)
    assert str(raised.value) == "voice provider circuit open"
    assert raised.value.retry_after_s == 1  # the 0.5 s ttl, rounded up
    assert fake_openai.transcriptions.calls == 5


async def test_retry_after_is_the_time_left_until_half_open(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    provider = make_provider(ProviderBreaker(None, threshold=1, ttl_s=30))
    fake_openai.transcriptions.then(Answer.error(500))
    await _fail(provider, 1)
    with pytest.raises(ProviderUnavailable) as raised:
        await _transcribe(provider)
    assert 29 <= raised.value.retry_after_s <= 30


async def test_timeouts_count_as_failures(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    # Open for 30 s, not the fixture's 0.5 s, and a 1 s timeout, not 0.2 s: on a loaded machine
    # the three 500s (retried) took longer than 0.2 s, and the call after the fifth failure
    # could come more than 0.5 s later, find the circuit half-open and go through.
    provider = make_provider(ProviderBreaker(None, ttl_s=30), transcribe_timeout_s=1.0)
    fake_openai.transcriptions.then(*[Answer.error(500)] * 3)
    await _fail(provider, 3)
    fake_openai.transcriptions.default = Answer.json({"text": "late"}, delay_s=3.0)
    for _ in range(2):
        with pytest.raises(ProviderTimeout):
            await _transcribe(provider)

    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _transcribe(provider)
    assert fake_openai.transcriptions.calls == 5


async def test_bad_answers_do_not_count(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, breaker: ProviderBreaker
) -> None:
    provider = make_provider(breaker)
    fake_openai.transcriptions.then(*[Answer.malformed()] * 8)
    for _ in range(8):
        with pytest.raises(ProviderBadAnswer):
            await _transcribe(provider)

    assert (await _transcribe(provider)).text == TRANSCRIPT
    assert fake_openai.transcriptions.calls == 9


async def test_a_success_resets_the_count(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, breaker: ProviderBreaker
) -> None:
    provider = make_provider(breaker)
    fake_openai.transcriptions.then(*[Answer.error(503)] * 4)
    await _fail(provider, 4)
    await _transcribe(provider)
    fake_openai.transcriptions.then(*[Answer.error(503)] * 4)
    await _fail(provider, 4)

    await _transcribe(provider)
    assert fake_openai.transcriptions.calls == 10


async def test_a_failing_planner_opens_its_circuit_however_well_the_transcriber_answers(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """The transcriber and the planner fail apart: each command's good transcription does not
    reset the planner's count, so a dead planner opens the planner's circuit, and the
    transcriber's stays closed."""
    plan_breaker = ProviderBreaker(None, call="plan", ttl_s=30)
    provider = make_provider(ProviderBreaker(None, ttl_s=30), plan_breaker=plan_breaker)
    fake_openai.completions.default = Answer.error(503)
    for _ in range(5):
        assert (await _transcribe(provider)).text == TRANSCRIPT
        with pytest.raises(ProviderUnavailable):
            await _plan(provider)

    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _plan(provider)
    assert fake_openai.completions.calls == 5
    assert (await _transcribe(provider)).text == TRANSCRIPT


async def test_a_failing_transcriber_leaves_the_planners_circuit_closed(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, breaker: ProviderBreaker
) -> None:
    """An open transcription circuit refuses transcriptions only."""
    provider = make_provider(breaker)
    fake_openai.transcriptions.default = Answer.error(502)
    await _fail(provider, 5)
    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _transcribe(provider)

    assert await _plan(provider) is not None
    assert fake_openai.completions.calls == 1


async def test_after_the_ttl_a_success_closes_the_circuit(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, breaker: ProviderBreaker
) -> None:
    provider = make_provider(breaker)
    fake_openai.transcriptions.then(*[Answer.error(503)] * 5)
    await _fail(provider, 5)
    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _transcribe(provider)

    await asyncio.sleep(0.6)
    assert (await _transcribe(provider)).text == TRANSCRIPT
    # Closed again: the count starts over, so four failures leave it closed.
    fake_openai.transcriptions.then(*[Answer.error(503)] * 4)
    await _fail(provider, 4)
    await _transcribe(provider)
    assert fake_openai.transcriptions.calls == 11


async def test_a_failure_while_half_open_reopens_at_once(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, breaker: ProviderBreaker
) -> None:
    provider = make_provider(breaker)
    fake_openai.transcriptions.default = Answer.error(503)
    await _fail(provider, 5)
    await asyncio.sleep(0.6)

    await _fail(provider, 1)  # the half-open probe reaches the provider and fails
    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _transcribe(provider)
    assert fake_openai.transcriptions.calls == 6


async def test_a_cancelled_call_is_not_a_failure(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    provider = make_provider(ProviderBreaker(None, threshold=1, ttl_s=30))
    await _cancel_a_slow_call(provider, fake_openai)

    assert (await _transcribe(provider)).text == TRANSCRIPT


async def test_redis_shares_the_open_circuit_between_processes(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, clean_redis: str
) -> None:
    first, second = ProviderBreaker(clean_redis), ProviderBreaker(clean_redis)
    await first.start()
    await second.start()
    try:
        assert first.shared
        assert second.shared
        fake_openai.transcriptions.default = Answer.error(503)
        await _fail(make_provider(first), 5)

        with pytest.raises(ProviderUnavailable, match="circuit open") as raised:
            await _transcribe(make_provider(second))
        assert 29 <= raised.value.retry_after_s <= 30
        assert fake_openai.transcriptions.calls == 5
    finally:
        await first.aclose()
        await second.aclose()


async def test_redis_counts_failures_from_every_process(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, clean_redis: str
) -> None:
    first, second = ProviderBreaker(clean_redis), ProviderBreaker(clean_redis)
    await first.start()
    await second.start()
    try:
        fake_openai.transcriptions.default = Answer.error(503)
        await _fail(make_provider(first), 3)
        await _fail(make_provider(second), 2)

        with pytest.raises(ProviderUnavailable, match="circuit open"):
            await _transcribe(make_provider(first))
        assert fake_openai.transcriptions.calls == 5
    finally:
        await first.aclose()
        await second.aclose()


async def test_unreachable_redis_at_start_falls_back_to_memory(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="lisan.providers.breaker")
    breaker = ProviderBreaker(DOWN_REDIS)
    await breaker.start()
    try:
        assert not breaker.shared
        warnings = [r for r in caplog.records if r.name == "lisan.providers.breaker"]
        assert len(warnings) == 1
        assert "1/15" not in warnings[0].getMessage()
        provider = make_provider(breaker)
        assert (await _transcribe(provider)).text == TRANSCRIPT
        fake_openai.transcriptions.default = Answer.error(503)
        await _fail(provider, 5)
        with pytest.raises(ProviderUnavailable, match="circuit open"):
            await _transcribe(provider)
    finally:
        await breaker.aclose()


async def test_redis_lost_while_running_falls_back_to_memory(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    clean_redis: str,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="lisan.providers.breaker")
    breaker = ProviderBreaker(clean_redis)
    await breaker.start()
    try:
        provider = make_provider(breaker)
        await _transcribe(provider)

        async def redis_gone(*_args: Any, **_kwargs: Any) -> Any:
            raise RedisConnectionError("Redis went away")

        monkeypatch.setattr(redis.Redis, "get", redis_gone)
        assert (await _transcribe(provider)).text == TRANSCRIPT
        assert (await _transcribe(provider)).text == TRANSCRIPT
        assert not breaker.shared
        assert len([r for r in caplog.records if r.name == "lisan.providers.breaker"]) == 1
    finally:
        await breaker.aclose()


async def test_redis_lost_while_recording_an_outcome_keeps_the_outcome(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    clean_redis: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    breaker = ProviderBreaker(clean_redis)
    await breaker.start()
    try:
        provider = make_provider(breaker)
        await _transcribe(provider)

        async def redis_gone(*_args: Any, **_kwargs: Any) -> Any:
            raise RedisConnectionError("Redis went away")

        # Reading the circuit works; recording the failure does not.
        monkeypatch.setattr(redis.Redis, "incr", redis_gone)
        fake_openai.transcriptions.then(Answer.error(429, headers={"Retry-After": "9"}))
        with pytest.raises(ProviderUnavailable) as raised:
            await _transcribe(provider)
        assert raised.value.retry_after_s == 9
        assert not breaker.shared
    finally:
        await breaker.aclose()


async def _open_then_half_open(provider: OpenAIProvider, fake_openai: FakeOpenAI) -> None:
    fake_openai.transcriptions.then(*[Answer.error(503)] * 2)
    await _fail(provider, 2)
    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _transcribe(provider)
    await asyncio.sleep(0.6)  # past the TTL: the next call is the half-open probe


async def test_a_cancelled_probe_leaves_the_circuit_half_open(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """A cancelled call is no success: it never closes a half-open circuit."""
    provider = make_provider(ProviderBreaker(None, threshold=2, ttl_s=0.5))
    await _open_then_half_open(provider, fake_openai)
    await _cancel_a_slow_call(provider, fake_openai)
    # Still half-open: one failure re-opens it at once (closed, it would take two).
    fake_openai.transcriptions.then(Answer.error(503))
    await _fail(provider, 1)
    with pytest.raises(ProviderUnavailable, match="circuit open"):
        await _transcribe(provider)


async def test_no_free_connection_of_our_own_is_not_a_provider_failure() -> None:
    """A timeout waiting for our own connection pool is not a provider failure."""
    breaker = ProviderBreaker(None, threshold=1, ttl_s=30)

    async def at_capacity() -> str:
        raise ServiceAtCapacity("no free provider connection")

    async def answered() -> str:
        return "answered"

    for _ in range(3):
        with pytest.raises(ServiceAtCapacity):
            await breaker.call(at_capacity)
    assert await breaker.call(answered) == "answered"


async def test_a_full_pool_answers_at_capacity_quickly(
    settings_factory: Any, fake_openai: FakeOpenAI
) -> None:
    settings = settings_factory(
        provider="openai", openai_base_url=fake_openai.base_url, openai_api_key="sk-test-pool"
    )
    http = ProviderHTTP(connections=1)
    try:
        breakers = Breakers(ProviderBreaker(None, threshold=1), ProviderBreaker(None, call="plan"))
        provider = OpenAIProvider(settings, http, breakers)
        fake_openai.transcriptions.then(Answer.json({"text": "slow"}, delay_s=2.0))
        holder = asyncio.create_task(_transcribe(provider))
        await asyncio.sleep(0.2)
        started = time.perf_counter()
        with pytest.raises(ServiceAtCapacity):
            await _transcribe(provider)
        waited = time.perf_counter() - started
        assert (await holder).text == "slow"
        assert (await _transcribe(provider)).text == TRANSCRIPT  # the circuit stayed closed
    finally:
        await http.aclose()
    assert waited < 1.5  # POOL_WAIT_S, not the 8 s transcription timeout


async def test_the_circuit_is_scoped_to_the_provider_it_guards(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, clean_redis: str
) -> None:
    """Two services sharing a Redis: one provider's open circuit does not stop the other's."""
    guarded, other = (
        ProviderBreaker(clean_redis, circuit="lisan.voice-provider:openai:a"),
        ProviderBreaker(clean_redis, circuit="lisan.voice-provider:openai:b"),
    )
    await guarded.start()
    await other.start()
    try:
        fake_openai.transcriptions.then(*[Answer.error(503)] * 5)
        await _fail(make_provider(guarded), 5)
        with pytest.raises(ProviderUnavailable, match="circuit open"):
            await _transcribe(make_provider(guarded))
        assert (await _transcribe(make_provider(other))).text == TRANSCRIPT
    finally:
        await guarded.aclose()
        await other.aclose()


def test_each_provider_call_and_endpoint_has_its_own_circuit(
    settings_factory: Any,
) -> None:
    """One circuit per call and endpoint: the planner's is not the transcriber's, even on one
    server, and a planner moved to another server has another."""
    shared = settings_factory(provider="openai", openai_base_url="http://a.test/v1")
    moved = settings_factory(
        provider="openai",
        openai_base_url="http://a.test/v1",
        openai_plan_base_url="http://b.test/v1",
    )
    names = {
        circuit_name(shared, "transcribe"),
        circuit_name(shared, "plan"),
        circuit_name(moved, "plan"),
        circuit_name(settings_factory(provider="local"), "plan"),
    }
    assert len(names) == 4
    assert circuit_name(moved, "transcribe") == circuit_name(shared, "transcribe")


async def test_the_breaker_goes_back_to_redis_when_redis_returns(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    clean_redis: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After a Redis failure the breaker goes back to Redis once it answers, so several processes
    share it again."""
    monkeypatch.setattr(breaker_module, "REDIS_RETRY_AFTER_S", 0.3)
    breaker, peer = ProviderBreaker(clean_redis), ProviderBreaker(clean_redis)
    await breaker.start()
    await peer.start()
    try:
        provider = make_provider(breaker)
        original_get = redis.Redis.get

        async def redis_gone(*_args: Any, **_kwargs: Any) -> Any:
            raise RedisConnectionError("Redis went away")

        monkeypatch.setattr(redis.Redis, "get", redis_gone)
        await _transcribe(provider)
        assert not breaker.shared
        monkeypatch.setattr(redis.Redis, "get", original_get)
        await asyncio.sleep(0.4)
        await _transcribe(provider)  # starts the return to Redis, without waiting for it
        for _ in range(50):
            if breaker.shared:
                break
            await asyncio.sleep(0.02)
        assert breaker.shared
        # Shared again: failures counted here open the circuit for the peer too.
        fake_openai.transcriptions.then(*[Answer.error(503)] * 5)
        await _fail(provider, 5)
        with pytest.raises(ProviderUnavailable, match="circuit open"):
            await _transcribe(make_provider(peer))
    finally:
        await breaker.aclose()
        await peer.aclose()


async def test_a_hung_redis_holds_no_call_past_its_bound(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, redis_url: str, tmp_path: Path
) -> None:
    """On a frozen Redis calls never queue behind each other (redis-py connects one connection at
    a time): each waits at most REDIS_TIMEOUT_S, and then none waits."""
    frozen = PrivateRedis.create(tmp_path)
    frozen.start()
    breaker = ProviderBreaker(frozen.url)
    await breaker.start()
    try:
        provider = make_provider(breaker)
        await _transcribe(provider)
        frozen.freeze()

        async def timed() -> float:
            started = time.perf_counter()
            assert (await _transcribe(provider)).text == TRANSCRIPT
            return time.perf_counter() - started

        at_the_hang = await asyncio.gather(*(timed() for _ in range(20)))
        after = await asyncio.gather(*(timed() for _ in range(20)))
    finally:
        frozen.thaw()
        await breaker.aclose()
        frozen.stop()
    assert max(at_the_hang) < REDIS_TIMEOUT_S + 1.0
    assert not breaker.shared
    assert max(after) < 0.5
