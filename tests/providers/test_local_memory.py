"""What the offline decoder workers remember of the words they are sent (screen labels, contact
names, vocabulary terms): bounded caches, processes replaced after a number of decodes, and no
word held by any process past the time bound, busy or idle. Real worker processes throughout."""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator

import pytest

from lisan.core.locale import Locale
from lisan.providers.base import Expected, Screen
from lisan.providers.local import pool as decoder_pool
from lisan.providers.local.grammar import build
from lisan.providers.local.phones import CACHED_READINGS, Pronouncer
from lisan.providers.local.pool import DecoderPool, Memory, Request, worker_memory
from lisan.providers.local.provider import request_for
from lisan.providers.local.recognizer import CHECKED_WORDS, Recognizer
from lisan.providers.local.whisper.scorer import Scorer
from lisan.testing.speech import padded, spoken

CHAT = "org.telegram.messenger"
TERM = "Zorblatt"  # a contact name no dictionary knows: only a request could teach it
GO_BACK = padded(spoken("go back"), 2.0)
WAIT_S = 60.0  # for a process to start or exit: a bound on a wait, not a timing


def _word(number: int) -> str:
    """A made-up word of its own for each number ("bada", "bade", ...)."""
    consonants, vowels, letters = "bdfgklmnprstvz", "aeiou", ""
    for _ in range(4):
        number, syllable = divmod(number, len(consonants) * len(vowels))
        letters += consonants[syllable // len(vowels)] + vowels[syllable % len(vowels)]
    return letters


def _distinct_labels(index: int) -> str:
    """A screen of 8 two-word labels whose 16 words no other index's screen holds."""
    return "\n".join(
        f'[n{i}] Button "{_word(16 * index + 2 * i)} {_word(16 * index + 2 * i + 1)}" {{clickable}}'
        for i in range(8)
    )


def _labels_request(index: int) -> Request:
    return request_for(Expected([], Screen(CHAT, _distinct_labels(index)), []), Locale.EN_US, 0.5)


def _with_term() -> Request:
    return request_for(Expected([TERM], None, [CHAT]), Locale.EN_US, 0.5)


async def _memory(pool: DecoderPool) -> Memory:
    return await pool.submit(worker_memory, [TERM.lower()])


def hear_and_recall(pcm: bytes, request: Request) -> Memory:
    """Run in a worker: one decode, then what the worker holds of the term, in one call (a
    second call could land after the processes were replaced)."""
    assert decoder_pool.hear_in_worker(pcm, request).text == "go back"
    return worker_memory([TERM.lower()])


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # no signal: only whether the process exists
    except ProcessLookupError:
        return False
    return True


async def _exited(pid: int) -> bool:
    """Whether process `pid` is gone (exited and reaped), waiting up to WAIT_S for it."""
    for _ in range(int(WAIT_S * 10)):
        if not _alive(pid):
            return True
        await asyncio.sleep(0.1)
    return False


@pytest.fixture
async def small_pool(request: pytest.FixtureRequest) -> AsyncIterator[DecoderPool]:
    limits: dict[str, float] = getattr(request, "param", {})
    pool = DecoderPool(1, 8, **limits)  # type: ignore[arg-type]
    yield pool
    pool.close()


def test_the_caches_stay_bounded_after_many_commands_with_distinct_labels(
    whisper_scorer: Scorer,
) -> None:
    """Every command brings 16 new words; the pronouncer's readings and the recognizer's record
    of the words it added keep only their most recent ones, and decoding still works."""
    pronouncer = Pronouncer(maxsize=40)
    recognizer = Recognizer(checked_words=30, scorer=whisper_scorer)
    for index in range(12):
        screen = Screen(CHAT, _distinct_labels(index))
        grammar = build(Expected([], screen, []), Locale.EN_US, pronouncer)
        heard = recognizer.hear(GO_BACK, grammar, Locale.EN_US, True, 0.5)
        assert heard.text == "go back"
        assert len(pronouncer.cache) <= 40
        assert len(recognizer.checked) <= 30
    assert recognizer.added_words >= 12 * 16  # the words did come
    # A worker's own caches are bounded the same way, at their fixed sizes.
    worker_recognizer, worker_pronouncer = decoder_pool._state()
    assert worker_pronouncer.cache.maxsize == CACHED_READINGS
    assert worker_recognizer.checked.maxsize == CHECKED_WORDS


def test_a_decoder_whose_dictionary_grew_past_its_bound_is_made_afresh(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """pocketsphinx cannot forget a word: a decoder that was taught DECODER_WORDS words is
    replaced by a fresh one in the same process."""
    monkeypatch.setattr(decoder_pool, "DECODER_WORDS", 40)
    monkeypatch.setattr(decoder_pool, "_worker", None)
    recognizers = []
    for index in range(6):
        assert decoder_pool.hear_in_worker(GO_BACK, _labels_request(100 + index)).text == "go back"
        recognizer, _ = decoder_pool._state()
        recognizers.append(recognizer)
        assert recognizer.added_words < 40 + 2 * 16  # one screen past the bound at most
    assert len({id(r) for r in recognizers}) > 1


@pytest.mark.parametrize("small_pool", [{"recycle_after_decodes": 3}], indirect=True)
async def test_a_decoder_process_is_replaced_after_its_decode_limit(
    small_pool: DecoderPool,
) -> None:
    assert (await small_pool.hear(GO_BACK, _with_term())).text == "go back"
    first = await _memory(small_pool)
    assert TERM.lower() in first.known  # the worker learnt the user's word
    assert (await small_pool.hear(GO_BACK, _with_term())).text == "go back"  # its 3rd decode
    second = await _memory(small_pool)
    assert second.pid != first.pid
    assert second.known == frozenset()
    assert await _exited(first.pid)
    assert small_pool.recycled == 1


@pytest.mark.parametrize("small_pool", [{"recycle_after_decodes": 2}], indirect=True)
async def test_decodes_queued_past_the_limit_all_finish(small_pool: DecoderPool) -> None:
    """ProcessPoolExecutor(max_tasks_per_child=2) hangs on Python 3.11 with three decodes
    queued for one worker; the pool's own recycling must not."""
    heard = await asyncio.wait_for(
        asyncio.gather(*(small_pool.hear(GO_BACK, _with_term()) for _ in range(7))), WAIT_S
    )
    assert [h.text for h in heard] == ["go back"] * 7
    assert small_pool.recycled == 3


@pytest.mark.parametrize("small_pool", [{"recycle_after_s": 1.0}], indirect=True)
async def test_no_process_holds_a_users_words_past_the_time_bound_even_when_idle(
    small_pool: DecoderPool,
) -> None:
    """The bound that keeps a deleted user's words out of the decoders: after a decode, with no
    other traffic, the processes that heard it are replaced and exit."""
    before = await small_pool.submit(hear_and_recall, GO_BACK, _with_term())
    assert TERM.lower() in before.known
    for _ in range(int(WAIT_S * 10)):  # idle: only the pool's timer can act
        if small_pool.recycled:
            break
        await asyncio.sleep(0.1)
    assert small_pool.recycled == 1
    assert await _exited(before.pid)
    after = await _memory(small_pool)
    assert (after.pid, after.known) != (before.pid, before.known)
    assert after.known == frozenset()
