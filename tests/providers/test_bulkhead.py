"""The bulkhead in front of a remote provider (LISAN_PROVIDER_MAX_CONCURRENCY): a call past the
bound waits briefly for a slot, then is refused at once (503 with Retry-After) without reaching
the provider or counting against its breaker; queued time never counts against a call's own
timeout."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import Expected, ServiceAtCapacity, Transcript
from lisan.providers.breaker import ProviderBreaker
from lisan.providers.openai import OpenAIProvider
from lisan.testing.openai_script import DEFAULT_TRANSCRIPTION, Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import app_with as command_app
from tests.fixtures.commands import command as send
from tests.fixtures.commands import command_body
from tests.fixtures.devices import ready_device
from tests.fixtures.provider import PCM, MakeProvider


async def transcribe(provider: OpenAIProvider) -> Transcript | ServiceAtCapacity:
    try:
        return await provider.transcribe(PCM, Locale.EN_US, Expected([], None, []))
    except ServiceAtCapacity as refused:
        return refused


async def test_calls_past_the_bound_are_refused_quickly_and_never_reach_the_provider(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.default = Answer.json(DEFAULT_TRANSCRIPTION, delay_s=0.6)
    breaker = ProviderBreaker(None, threshold=2)
    provider = make_provider(breaker, provider_max_concurrency=1, provider_queue_wait_s=0.2)
    started = time.perf_counter()
    results = await asyncio.gather(*(transcribe(provider) for _ in range(4)))
    refused = [r for r in results if isinstance(r, ServiceAtCapacity)]
    assert len(refused) == 3
    assert all(r.retry_after_s >= 1 and r.kind == "busy" for r in refused)
    assert fake_openai.transcriptions.calls == 1
    assert time.perf_counter() - started < 1.2
    # Three refusals and the breaker (threshold 2) is still closed: our burst, not a failure.
    assert isinstance(await transcribe(provider), Transcript)


async def test_a_call_waits_for_a_slot_and_queued_time_is_not_its_timeout(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """Each call takes 0.4 s of a 0.5 s timeout; the third waits 0.8 s for its slot first."""
    fake_openai.transcriptions.default = Answer.json(DEFAULT_TRANSCRIPTION, delay_s=0.4)
    provider = make_provider(
        provider_max_concurrency=1, provider_queue_wait_s=2.0, transcribe_timeout_s=0.5
    )
    results = await asyncio.gather(*(transcribe(provider) for _ in range(3)))
    assert all(isinstance(r, Transcript) for r in results), results
    assert fake_openai.transcriptions.calls == 3


async def test_a_burst_of_commands_gets_503_with_retry_after_not_an_open_breaker(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.default = Answer.json(DEFAULT_TRANSCRIPTION, delay_s=0.5)
    async with command_app(
        settings_factory,
        fake_openai,
        provider_max_concurrency=2,
        provider_queue_wait_s=0.2,
    ) as client:
        devices = [await ready_device(client), await ready_device(client)]
        answers = await asyncio.gather(
            *(send(client, devices[n % 2], command_body()) for n in range(8))
        )
        reached = fake_openai.transcriptions.calls
        after = await send(client, devices[0], command_body())
    statuses = sorted(answer.status_code for answer in answers)
    assert statuses == [200] * 2 + [503] * 6
    for answer in answers:
        if answer.status_code == 503:
            assert int(answer.headers["retry-after"]) >= 1
            assert answer.json() == {"error": "the voice service is busy; try again shortly"}
    assert reached == 2, "the refused never reached the provider"
    assert after.status_code == 200, "the breaker did not open"


@pytest.mark.parametrize("value", ["0", "-1", "x"])
def test_the_bound_is_a_positive_number(
    settings_factory: Callable[..., Settings], value: str
) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        settings_factory(provider_max_concurrency=value)


async def test_one_user_cannot_hold_every_slot(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Each user holds at most a share of the slots (a quarter, at least one): one user's burst
    of slow commands is refused past its share at once, and another user's command still finds
    a free slot instead of queueing behind it."""
    fake_openai.transcriptions.default = Answer.json(DEFAULT_TRANSCRIPTION, delay_s=0.5)
    async with command_app(
        settings_factory, fake_openai, provider_max_concurrency=4, provider_queue_wait_s=0.2
    ) as client:
        busy, other = await ready_device(client), await ready_device(client)
        burst = [send(client, busy, command_body()) for _ in range(6)]
        answers = await asyncio.gather(*burst, send(client, other, command_body()))
    statuses = [answer.status_code for answer in answers]
    assert sorted(statuses[:6]) == [200] + [503] * 5
    assert statuses[6] == 200
