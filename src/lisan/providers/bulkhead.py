"""A bulkhead in front of a remote provider: at most LISAN_PROVIDER_MAX_CONCURRENCY calls in
flight from this process to its endpoint.

A provider that serves one request at a time, flooded with eight, answers three and times out
five; the timeouts open the breaker, and every command then gets 503 for the breaker's whole
pause while the provider is still busy with the abandoned requests. With a bound, a call past it
waits for a free slot for at most LISAN_PROVIDER_QUEUE_WAIT_S, then is refused at once:
ServiceAtCapacity, a 503 with Retry-After that the breaker does not count (our own burst, not
the provider's failure).

Queued time does not count against the call's timeout (LISAN_TRANSCRIBE_TIMEOUT_S,
LISAN_PLAN_TIMEOUT_S): it has its own bound, and once a call holds a slot the provider has its
whole timeout, so a timeout that opens the breaker is always the provider's. A command may so
wait up to twice the queue bound (one wait per call) longer than the provider timeouts.

The bound is per process: N server processes allow N times it. Size it from what the provider
serves at once, divided by the processes.

Each user (`core.context.provider_caller_var`, set by the command service) holds at most a
share of the slots, LISAN_PROVIDER_MAX_PER_USER, by default `limit // USER_SHARE_DIVISOR` (at
least 1): a few users with slow commands
cannot hold every slot while everyone else waits. A call past its user's share is refused at
once, as a full bulkhead's is (503, Retry-After); other users' calls are untouched.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from lisan.core import turns
from lisan.core.context import provider_caller_var
from lisan.providers.base import ServiceAtCapacity

BUSY_RETRY_AFTER_S = 2
USER_SHARE_DIVISOR = 4


class Bulkhead:
    def __init__(self, limit: int, wait_s: float, *, user_share: int | None = None) -> None:
        self.limit = limit
        self.user_share = user_share or max(1, limit // USER_SHARE_DIVISOR)
        self._wait_s = wait_s
        self._slots = asyncio.Semaphore(limit)
        self._held: dict[str, int] = {}  # slots held or awaited, by user

    @asynccontextmanager
    async def slot(self, operation: str) -> AsyncIterator[None]:
        """Hold one of the slots for the block; ServiceAtCapacity when none frees in time, or
        at once when the caller holds its share already."""
        caller = provider_caller_var.get()
        if caller is not None and self._held.get(caller, 0) >= self.user_share:
            raise ServiceAtCapacity(
                f"{operation}: one user holds {self.user_share} provider calls",
                retry_after_s=BUSY_RETRY_AFTER_S,
                public_message="the voice service is busy; try again shortly",
            )
        if caller is not None:
            self._held[caller] = self._held.get(caller, 0) + 1
        try:
            async with self._slot(operation):
                yield
        finally:
            if caller is not None:
                held = self._held[caller] - 1
                if held:
                    self._held[caller] = held
                else:
                    del self._held[caller]

    @asynccontextmanager
    async def _slot(self, operation: str) -> AsyncIterator[None]:
        try:
            await turns.acquire(self._slots, within_s=self._wait_s)
        except TimeoutError:
            raise ServiceAtCapacity(
                f"{operation}: {self.limit} provider calls in flight",
                retry_after_s=BUSY_RETRY_AFTER_S,
                public_message="the voice service is busy; try again shortly",
            ) from None
        try:
            yield
        finally:
            self._slots.release()
