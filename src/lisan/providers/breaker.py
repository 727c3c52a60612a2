"""The voice provider's circuit breakers (purgatory), one per call (`Breakers`: the transcriber
and the planner are often different servers, and a transcription that succeeds must not hide a
planner that fails): after `threshold` failures of its call in a row, calls fail at once with
ProviderUnavailable, without a request, until `ttl_s` has passed; then calls go through again
(half-open) and the first outcome closes or re-opens the circuit.

`lisan_provider_breaker_open{call}` is the circuit's state as this process last found it: 1
from the moment a call finds it open or a failure opens it, until a call's outcome closes it.
A half-open probe leaves it at 1 until it succeeds, so an outage at night, with a probe now and
then, keeps it at 1 throughout. Each process reports its own (the alert takes the maximum).

Each call ends one of three ways. A failure is ProviderUnavailable or ProviderTimeout raised by
the provider. A success is an answer, also one in a bad shape (the provider is up). Anything
else says nothing about the provider and is not counted at all: a cancelled call (the client
went away), our own connection pool with no connection free (ServiceAtCapacity), a bug.

With LISAN_REDIS_URL the state is shared by every process through Redis, under a key that
names the provider it guards. Redis is never required: when it fails the breaker keeps its
state in this process and tries Redis again, in the background, every REDIS_RETRY_AFTER_S.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from purgatory import AsyncCircuitBreakerFactory, AsyncRedisUnitOfWork
from purgatory.domain.model import OpenedState
from purgatory.service._async.circuitbreaker import AsyncCircuitBreaker

from lisan.core import metrics
from lisan.core.ratelimit import REDIS_RETRY_AFTER_S  # the same pause off a failed Redis
from lisan.providers.base import (
    Outcome,
    ProviderCall,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    ServiceAtCapacity,
)
from lisan.providers.breaker_redis import (
    REDIS_DOWN,
    REDIS_TIMEOUT_S,
    close_redis,
    consume,
    in_redis,
    with_timeouts,
)

log = logging.getLogger(__name__)

T = TypeVar("T")

FALLBACK = "breaker"  # the `component` of lisan_redis_fallbacks_total
metrics.REDIS_COMPONENTS.declare({FALLBACK})


def is_provider_failure(exc: BaseException) -> bool:
    return isinstance(exc, ProviderUnavailable | ProviderTimeout) and not isinstance(
        exc, ServiceAtCapacity
    )


def is_provider_answer(exc: BaseException) -> bool:
    """An error that still means the provider answered (a bad shape, a refusal): up."""
    return isinstance(exc, ProviderError) and not isinstance(
        exc, ProviderUnavailable | ProviderTimeout
    )


class ProviderBreaker:
    def __init__(
        self,
        redis_url: str | None,
        *,
        call: str = ProviderCall.TRANSCRIBE,
        circuit: str = "lisan.voice-provider",
        threshold: int = 5,
        ttl_s: float = 30.0,
    ) -> None:
        self._redis_url = redis_url
        self._circuit = circuit
        self._gauge = metrics.labelled(metrics.BREAKER_OPEN, call)
        self._gauge.set(0)
        self._threshold = threshold
        self._ttl_s = ttl_s
        self._factory = self._new_factory(None)
        self._redis_uow: AsyncRedisUnitOfWork | None = None
        self._retry_redis_at = math.inf  # set when Redis is lost
        self._reconnecting: asyncio.Task[None] | None = None
        self._closing: set[asyncio.Future[Any]] = set()  # steps left behind by a lost Redis

    @property
    def shared(self) -> bool:
        """True while the state lives in Redis (shared by every process)."""
        return self._redis_uow is not None

    async def start(self) -> None:
        """Connect to Redis when configured; on failure stay in memory (logged once) and try
        again later."""
        if self._redis_url is None or self._redis_uow is not None:
            return
        if not await self._connect():
            self._retry_redis_at = time.monotonic() + REDIS_RETRY_AFTER_S
            log.warning(
                "Redis unreachable: the voice provider circuit breaker keeps its state in "
                "this process",
            )

    async def _connect(self) -> bool:
        assert self._redis_url is not None
        uow = AsyncRedisUnitOfWork(with_timeouts(self._redis_url))
        factory = self._new_factory(uow)
        try:
            async with asyncio.timeout(2 * REDIS_TIMEOUT_S):
                await factory.initialize()
                await factory.get_breaker(self._circuit)  # reaches Redis now, not on a call
        except REDIS_DOWN:
            await close_redis(uow)
            return False
        self._factory, self._redis_uow = factory, uow
        self._retry_redis_at = math.inf
        return True

    async def aclose(self) -> None:
        if self._reconnecting is not None:
            self._reconnecting.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reconnecting
        uow, self._redis_uow = self._redis_uow, None
        self._factory = self._new_factory(None)
        if uow is not None:
            await close_redis(uow)
        for closing in list(self._closing):
            closing.cancel()
            with contextlib.suppress(asyncio.CancelledError, *REDIS_DOWN):
                await closing

    async def call(self, operation: Callable[[], Awaitable[T]]) -> T:
        """Run one provider call through the circuit."""
        self._maybe_return_to_redis()
        factory = self._factory
        try:
            # One bound over all of it: redis-py connects one connection at a time under a
            # lock, so a hung Redis would queue calls behind each other's socket timeouts.
            breaker = await self._bounded(self._admit(factory), shared=in_redis(factory))
        except OpenedState as opened:
            self._gauge.set(1)
            raise ProviderUnavailable(
                "voice provider circuit open",
                retry_after_s=self._retry_after_s(opened),
                kind=Outcome.CIRCUIT_OPEN,
            ) from None
        except REDIS_DOWN as exc:
            await self._lose_redis(factory, exc)
            return await self.call(operation)
        try:
            result = await operation()
        except BaseException as exc:
            if is_provider_failure(exc):
                failed = functools.partial(breaker.context.handle_exception, exc)
                await self._record(factory, breaker, failed)
            elif is_provider_answer(exc):
                await self._record(factory, breaker, breaker.context.handle_end_request)
            raise  # anything else (cancelled, our own capacity, a bug) is not counted
        await self._record(factory, breaker, breaker.context.handle_end_request)
        return result

    async def _admit(self, factory: AsyncCircuitBreakerFactory) -> AsyncCircuitBreaker:
        breaker = await factory.get_breaker(self._circuit)
        await self._settle(breaker, breaker.context.handle_new_request)
        return breaker

    async def _bounded(self, step: Coroutine[object, object, T], *, shared: bool) -> T:
        """Run one step that may reach Redis, for at most REDIS_TIMEOUT_S. A cancellation is
        not a bound: redis-py may take one for its own socket timeout and go on (a retry, a
        reconnect), so a late step is left behind, cancelled and closing beside the call."""
        if not shared:
            return await step
        task = asyncio.ensure_future(step)
        try:
            done, _ = await asyncio.wait({task}, timeout=REDIS_TIMEOUT_S)
        except asyncio.CancelledError:
            task.cancel()
            raise
        if not done:
            task.cancel()
            self._leave_behind(task)
            raise TimeoutError("Redis did not answer in time")
        return task.result()

    def _leave_behind(self, task: asyncio.Future[Any]) -> None:
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)
        task.add_done_callback(consume)

    @staticmethod
    async def _settle(breaker: AsyncCircuitBreaker, change: Callable[[], None]) -> None:
        """Apply one change to the circuit and store what it changed (in Redis when shared)."""
        try:
            change()
        finally:
            while breaker.context.messages:
                await breaker.messagebus.handle(breaker.context.messages.pop(0), breaker.uow)

    async def _record(
        self,
        factory: AsyncCircuitBreakerFactory,
        breaker: AsyncCircuitBreaker,
        change: Callable[[], None],
    ) -> None:
        try:
            await self._bounded(self._settle(breaker, change), shared=in_redis(factory))
        except REDIS_DOWN as exc:
            # The call itself ran; only recording its outcome in Redis failed.
            await self._lose_redis(factory, exc)
        self._gauge.set(1 if breaker.context.state == OpenedState.name else 0)

    def _retry_after_s(self, opened: OpenedState) -> int:
        """Seconds until the circuit half-opens, at least 1."""
        remaining = opened.opened_at + self._ttl_s - time.time()
        return max(1, min(math.ceil(self._ttl_s), math.ceil(remaining)))

    async def _lose_redis(self, factory: AsyncCircuitBreakerFactory, exc: BaseException) -> None:
        """Redis failed while running: keep the breaker in memory until Redis answers again."""
        if factory is not self._factory:  # another call already switched
            return
        uow, self._redis_uow = self._redis_uow, None
        self._factory = self._new_factory(None)
        self._retry_redis_at = time.monotonic() + REDIS_RETRY_AFTER_S
        metrics.labelled(metrics.REDIS_FALLBACKS, FALLBACK).inc()
        log.warning(
            "Redis failed: the voice provider circuit breaker keeps its state in this process",
            extra={"error": type(exc).__name__},
        )
        if uow is not None:  # closed beside the call: a frozen Redis may hold the close too
            self._leave_behind(asyncio.create_task(close_redis(uow)))

    def _maybe_return_to_redis(self) -> None:
        """Once REDIS_RETRY_AFTER_S has passed, one background attempt to go back to Redis;
        calls never wait for it."""
        if time.monotonic() < self._retry_redis_at or self._reconnecting is not None:
            return
        self._retry_redis_at = time.monotonic() + REDIS_RETRY_AFTER_S
        self._reconnecting = asyncio.create_task(self._return_to_redis())

    async def _return_to_redis(self) -> None:
        try:
            if await self._connect():
                log.warning("Redis back: the voice provider circuit breaker is shared again")
        finally:
            self._reconnecting = None

    def _new_factory(self, uow: AsyncRedisUnitOfWork | None) -> AsyncCircuitBreakerFactory:
        return AsyncCircuitBreakerFactory(
            default_threshold=self._threshold, default_ttl=self._ttl_s, uow=uow
        )


@dataclass(frozen=True, slots=True)
class Breakers:
    """One circuit per provider call, so each fails apart."""

    transcribe: ProviderBreaker
    plan: ProviderBreaker

    @classmethod
    def for_circuits(cls, redis_url: str | None, *, transcribe: str, plan: str) -> Breakers:
        return cls(
            ProviderBreaker(redis_url, call=ProviderCall.TRANSCRIBE, circuit=transcribe),
            ProviderBreaker(redis_url, call=ProviderCall.PLAN, circuit=plan),
        )

    async def start(self) -> None:
        await self.transcribe.start()
        await self.plan.start()

    async def aclose(self) -> None:
        await self.transcribe.aclose()
        await self.plan.aclose()
