"""Taking an asyncio lock or semaphore within a bound: `await acquire(slots, within_s=...)`.

The writer's turn, the provider's connection slots and its bulkheads are each taken on every
command, and nearly always free. `asyncio.timeout` around the wait costs a timer made and
cancelled, several times the acquire itself (see docs/benchmarks.md, "Measured choices"); a
free primitive is taken without waiting, so the timer is set only when there is a wait to
bound.
"""

from __future__ import annotations

import asyncio

Primitive = asyncio.Lock | asyncio.Semaphore


async def acquire(primitive: Primitive, *, within_s: float) -> None:
    """`primitive` acquired; TimeoutError when it is not free within `within_s`."""
    if not primitive.locked():  # asyncio's acquire takes a free one without suspending
        await primitive.acquire()
        return
    async with asyncio.timeout(within_s):
        await primitive.acquire()
