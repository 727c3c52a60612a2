"""The offline provider's decoder pool: decodes run off the event loop, and a full queue is a
503 at once (with Retry-After), never an unbounded pile."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import Expected, ProviderUnavailable
from lisan.providers.local import LocalProvider
from lisan.providers.local.confidence import Evidence, confidence
from lisan.providers.local.pool import DecoderPool, PoolFull, hear_in_worker
from lisan.providers.local.provider import BUSY, request_for
from lisan.providers.local.recognizer import Heard
from lisan.testing.speech import padded, spoken
from tests.fixtures.loop import loop_ticks


async def test_a_full_pool_refuses_at_once_and_frees_its_place_when_done() -> None:
    pool = DecoderPool(workers=1, queue=0)
    pcm = padded(spoken("go back"), 2.0)
    request = request_for(Expected([], None, []), Locale.EN_US, 0.5)
    first = asyncio.create_task(pool.hear(pcm, request))
    await asyncio.sleep(0)  # the first is in flight (its worker process is still starting)
    with pytest.raises(PoolFull):
        await pool.hear(pcm, request)
    assert (await first).text == "go back"
    assert (await pool.hear(pcm, request)).text == "go back"  # its place is free again
    pool.close()


@pytest.mark.parametrize(
    "failure",
    [PoolFull("busy"), FloatingPointError("overflow in the scorer")],
    ids=["a full pool", "a decode that failed in its process"],
)
async def test_the_provider_answers_a_decoder_it_cannot_use_with_a_503(
    settings_factory: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch, failure: Exception
) -> None:
    """A full pool, or whatever a decoder process raised (a bug, a numpy error in the second
    ear), reaches the route as the provider unavailable, with Retry-After: never a 500."""
    provider = LocalProvider(settings_factory(), workers=1)

    async def refused(*_: object, **__: object) -> Heard:
        raise failure

    monkeypatch.setattr(provider._pool, "hear", refused)
    with pytest.raises(ProviderUnavailable) as caught:
        await provider.transcribe(b"\0" * 3200, Locale.EN_US, Expected([], None, []))
    assert (caught.value.public_message, caught.value.retry_after_s) == (BUSY, 1)
    if isinstance(failure, FloatingPointError):
        assert "FloatingPointError" in str(caught.value)
    await provider.aclose()


async def test_decoding_leaves_the_event_loop_free(
    settings_factory: Callable[..., Settings],
) -> None:
    """While a command decodes in a worker, the loop keeps ticking."""
    provider = LocalProvider(settings_factory(), workers=1)
    pcm = padded(spoken("go back"), 2.0)
    async with loop_ticks(0.005) as ticks:
        transcript = await provider.transcribe(pcm, Locale.EN_US, Expected([], None, []))
    assert transcript.text == "go back"
    assert transcript.confidence is not None
    assert transcript.confidence >= 0.5
    assert ticks.count >= 5
    await provider.aclose()


@pytest.mark.parametrize("language", list(Locale))
def test_confidence_is_a_probability_that_falls_as_the_phone_loop_pulls_ahead(
    language: Locale,
) -> None:
    """The further the grammar's path falls behind the free phone loop, the lower the score."""
    values = [confidence(Evidence(gap, 200, 80), language) for gap in range(0, -201, -5)]
    assert all(0.0 <= v <= 1.0 for v in values)
    assert values == sorted(values, reverse=True)
    assert values[0] > 0.5 > values[-1]
    assert confidence(Evidence(-1e9, 200, 80), language) < 1e-300


@pytest.mark.parametrize("language", list(Locale))
def test_a_recording_shorter_than_two_seconds_is_judged_as_two(language: Locale) -> None:
    """Padding with silence changes no score: the same gap in 1 s or 2 s scores alike."""
    short, padded_out = Evidence(-0.3, 100, 60), Evidence(-0.3, 200, 60)
    assert confidence(short, language) == confidence(padded_out, language)


def test_a_recording_is_heard_the_same_whatever_the_worker_heard_before() -> None:
    """A decoder carries noise and cepstral-mean estimates from one recording to the next
    unless told not to; then a user's answer would depend on another user's audio."""
    request = request_for(Expected([], None, ["org.telegram.messenger"]), Locale.EN_US, 0.5)
    probe = padded(spoken("open telegram"), 2.0)
    first = hear_in_worker(probe, request)
    for other in ("go back", "scroll down", "go to the home screen"):
        hear_in_worker(padded(spoken(other), 2.0), request)
        again = hear_in_worker(probe, request)
        assert (again.text, again.confidence) == (first.text, first.confidence)
    assert first.text == "open telegram"
