"""The decoder pool: pocketsphinx decodes off the event loop, in worker processes that forget.

pocketsphinx holds the GIL while it decodes (a decode in a thread stalls the event loop for as
long as the decode lasts), so decodes run in `workers` processes (spawned, not forked: the server
has threads and an event loop a fork would copy), each with its own decoder, made on first use
and reused. Requests wait for a worker in a bounded queue; a full queue is refused at once
(`PoolFull`, a 503 with `Retry-After`), so a burst of slow decodes never piles up without bound.

What a worker remembers, and for how long. Each decode teaches the worker the words of its
grammar: the screen's labels, the user's contact names and vocabulary terms. They stay in the
decoder's dictionary (which pocketsphinx cannot shrink), in the pronouncer's cache of espeak-ng
readings and in the recognizer's record of the words it added. So that they neither grow
without bound nor outlive the user they came from:
- the two caches are cachetools `LRUCache`s of a fixed size (`phones.CACHED_READINGS`
  (word, voice) readings, `recognizer.CHECKED_WORDS` words), and a decoder whose dictionary
  has grown by `DECODER_WORDS` words is made afresh (a screen may bring hundreds of new
  words);
- the processes are replaced (`RECYCLE_AFTER_DECODES`, `RECYCLE_AFTER_S`): after a set of
  processes (one executor) has been sent that many decodes, or that long after its first
  decode, whichever comes first, the next decode goes to fresh processes, and the old ones
  finish what they were already given, then exit, with everything they held. A timer retires
  an idle set on the same bound, so the words of the last decode before a quiet hour do not
  stay for the hour.
So any word a decode brings is held by no process `RECYCLE_AFTER_S` (five minutes) after it
arrived, plus the time to finish the decodes already queued (at most `workers + queue`). That
is the bound for a deleted user's words: deletion runs in `lisan worker`, possibly on another
machine, which cannot reach this pool, so the guarantee is the time bound, not a flush signal.
The fresh processes are started (and their decoders made, about 1.5 s) as the old ones are
retired, not when the next command comes.

Not `ProcessPoolExecutor(max_tasks_per_child=...)`: on Python 3.11 a worker that reaches its
limit while decodes wait is not replaced, and the pool hangs (CPython gh-115634, fixed in later
releases; seen here on 3.11.7 with one worker, a limit of 2 and three decodes queued).
"""

from __future__ import annotations

import asyncio
import functools
import logging
import multiprocessing
import os
import time
from collections.abc import Callable, Collection
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TypeVar

from threadpoolctl import threadpool_limits

from lisan.core import metrics
from lisan.core.locale import Locale
from lisan.providers.base import Expected
from lisan.providers.local.grammar import build
from lisan.providers.local.phones import Pronouncer
from lisan.providers.local.recognizer import Heard, Recognizer
from lisan.providers.local.whisper import weights
from lisan.providers.local.whisper.scorer import Scorer

# A decode whose screen brings new words (a couple of dozen) costs its process about 9 KiB once
# the caches are full: 1000 decodes, about 9 MB.
RECYCLE_AFTER_DECODES = 1000
RECYCLE_AFTER_S = 300.0  # the bound on how long any word stays in a decoder process
DECODER_WORDS = 50_000  # words added to a decoder before it is made afresh: about 20 MB
T = TypeVar("T")
log = logging.getLogger("lisan.providers.local")


class PoolFull(Exception):
    """Every decoder is busy and the queue is full."""


@dataclass(frozen=True, slots=True)
class Request:
    """What a worker needs besides the audio (sent to it pickled)."""

    expected: Expected
    language: Locale
    dictation: bool
    refuse_below: float  # the confidence gate's threshold (LISAN_CONFIDENCE_THRESHOLD)


class DecoderPool:
    """`workers` processes; at most `queue` requests wait. The grammar is built in the worker
    too: pronouncing a new word runs espeak-ng, and its cache lives there. The processes are
    replaced after `recycle_after_decodes` decodes or `recycle_after_s` seconds (the module's
    docstring)."""

    def __init__(
        self,
        workers: int,
        queue: int,
        *,
        recycle_after_decodes: int = RECYCLE_AFTER_DECODES,
        recycle_after_s: float = RECYCLE_AFTER_S,
    ) -> None:
        self._workers = workers
        self._capacity = workers + queue
        self._recycle_after_decodes = recycle_after_decodes
        self._recycle_after_s = recycle_after_s
        self._in_flight = 0
        self._executor = self._new_executor()
        self._decodes = 0  # sent to the current executor
        self._first_decode_at: float | None = None  # monotonic time of its first
        self._expiry: asyncio.TimerHandle | None = None
        self.recycled = 0  # how many times the processes were replaced

    def _new_executor(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=self._workers, mp_context=context)

    async def hear(self, pcm: bytes, request: Request) -> Heard:
        """Decode in a worker; PoolFull at once when `workers + queue` decodes are in flight.
        A cancelled wait leaves its decode to finish in the worker, still counted."""
        if self._in_flight >= self._capacity:
            metrics.DECODER_REFUSALS.inc()
            raise PoolFull(f"{self._capacity} decodes running or waiting")
        future = self.submit(hear_in_worker, pcm, request)
        self._in_flight += 1
        self._show_queue()
        future.add_done_callback(functools.partial(self._done, time.perf_counter()))
        return await asyncio.shield(future)

    def _show_queue(self) -> None:
        metrics.DECODER_QUEUE.set(max(0, self._in_flight - self._workers))

    def submit(self, call: Callable[..., T], *args: object) -> asyncio.Future[T]:
        """`call(*args)` sent to a worker, counted as a decode (the recycling bound): the
        future of its answer. A dead worker (killed, out of memory) gets the pool a fresh set of
        processes, and its futures raise BrokenProcessPool."""
        if self._age() >= self._recycle_after_s:
            self._recycle()  # the timer is late (a busy loop): not this decode's words too
        loop = asyncio.get_running_loop()
        executor = self._executor
        try:
            future = loop.run_in_executor(executor, call, *args)
        except BrokenProcessPool:
            self._replace()
            raise
        future.add_done_callback(functools.partial(self._replace_if_broken, executor))
        self._decodes += 1
        if self._first_decode_at is None:
            self._first_decode_at = time.monotonic()
            self._expiry = loop.call_later(self._recycle_after_s, self._expire, executor)
        if self._decodes >= self._recycle_after_decodes:
            self._recycle()  # now, so that the next decode finds its processes started
        return future

    def _age(self) -> float:
        """Seconds since the current processes were sent their first decode (0: none yet)."""
        return 0.0 if self._first_decode_at is None else time.monotonic() - self._first_decode_at

    def _expire(self, executor: ProcessPoolExecutor) -> None:
        """The timer: an idle set of processes is retired on the same time bound."""
        if executor is self._executor:
            self._recycle()

    def _recycle(self) -> None:
        """Fresh processes, started now; the old finish their decodes, then exit."""
        self._replace()
        for _ in range(self._workers):
            self._executor.submit(warm_worker)
        self.recycled += 1

    def _replace(self) -> None:
        old = self._executor
        self._executor = self._new_executor()
        self._decodes, self._first_decode_at = 0, None
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        old.shutdown(wait=False)

    def _replace_if_broken(self, executor: ProcessPoolExecutor, future: asyncio.Future[T]) -> None:
        broken = not future.cancelled() and isinstance(future.exception(), BrokenProcessPool)
        if broken and executor is self._executor:
            self._replace()

    def _done(self, submitted: float, _: asyncio.Future[Heard]) -> None:
        self._in_flight -= 1
        self._show_queue()
        metrics.DECODE_DURATION.observe(time.perf_counter() - submitted)

    def close(self) -> None:
        if self._expiry is not None:
            self._expiry.cancel()
        self._executor.shutdown(wait=False, cancel_futures=True)


_worker: tuple[Recognizer, Pronouncer] | None = None  # the worker process's own


def _state() -> tuple[Recognizer, Pronouncer]:
    """The worker's recognizer and pronouncer, made on first use; the recognizer made afresh
    once its decoder's dictionary has grown by DECODER_WORDS (a decoder is slow to make, so it
    is renewed rarely). The second ear's weights, slower still to load, load once per process
    and are kept across those renewals."""
    global _worker
    if _worker is None:
        # numpy's BLAS would start a thread per core in each worker, which already is one of
        # `workers` processes: the threads contend for the same cores and spend CPU for no
        # better answer (see docs/benchmarks.md, "Measured choices").
        threadpool_limits(limits=1)
        _worker = (Recognizer(scorer=_load_scorer()), Pronouncer())
    elif _worker[0].added_words >= DECODER_WORDS:
        _worker = (Recognizer(scorer=_worker[0].scorer), _worker[1])
    return _worker


def _load_scorer() -> Scorer | None:
    try:
        return Scorer(weights.load())
    except weights.WeightsUnavailable as unavailable:
        log.error("offline scorer unavailable", extra={"error": str(unavailable)})
        return None


def warm_worker() -> None:
    """Make the worker's decoder now, before a command needs it."""
    _state()


def hear_in_worker(pcm: bytes, request: Request) -> Heard:
    """One decode, in a worker process (or, for the accuracy bench, in its own)."""
    recognizer, pronouncer = _state()
    grammar = build(request.expected, request.language, pronouncer)
    return recognizer.hear(pcm, grammar, request.language, request.dictation, request.refuse_below)


@dataclass(frozen=True, slots=True)
class Memory:
    """What a worker process holds of some words (for tests and operators): its id, which of
    the words it still knows, and the sizes of its caches."""

    pid: int
    known: frozenset[str]
    readings: int
    checked: int


def worker_memory(words: Collection[str]) -> Memory:
    """Run in a worker: which of `words` this process still knows, in any cache or in its
    decoder's dictionary."""
    recognizer, pronouncer = _state()
    cached = {word for word, _ in pronouncer.cache}
    known = {w for w in words if w in cached or w in recognizer.checked or recognizer.knows(w)}
    return Memory(os.getpid(), frozenset(known), len(pronouncer.cache), len(recognizer.checked))
