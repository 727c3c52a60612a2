"""`core.turns`: a lock or a semaphore taken within a bound. A free one is taken at once, with
no timer set; a held one is waited for until the bound, and then the wait is given up whole."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import pytest

from lisan.core.turns import Primitive, acquire

PRIMITIVES: dict[str, Callable[[], Primitive]] = {
    "lock": asyncio.Lock,
    "semaphore": lambda: asyncio.Semaphore(2),
}


@pytest.fixture
def timers(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """The bounds `acquire` set a timer for."""
    made: list[float] = []
    real = asyncio.timeout

    def counting(delay: float | None) -> Any:
        made.append(delay if delay is not None else -1.0)
        return real(delay)

    monkeypatch.setattr(asyncio, "timeout", counting)
    return made


@pytest.mark.parametrize("kind", PRIMITIVES)
async def test_a_free_one_is_taken_at_once_without_a_timer(kind: str, timers: list[float]) -> None:
    primitive = PRIMITIVES[kind]()
    await acquire(primitive, within_s=1.0)
    if isinstance(primitive, asyncio.Semaphore):
        assert not primitive.locked()  # one of its two slots is left
        await acquire(primitive, within_s=1.0)
    assert primitive.locked()
    assert timers == []


@pytest.mark.parametrize("kind", PRIMITIVES)
async def test_a_held_one_freed_within_the_bound_is_taken(kind: str, timers: list[float]) -> None:
    primitive = PRIMITIVES[kind]()
    while not primitive.locked():
        await primitive.acquire()
    asyncio.get_running_loop().call_later(0.05, primitive.release)
    await acquire(primitive, within_s=2.0)
    assert primitive.locked()
    assert timers == [2.0]


@pytest.mark.parametrize("kind", PRIMITIVES)
async def test_a_held_one_is_given_up_at_the_bound_and_left_as_it_was(kind: str) -> None:
    """The wait ends near its bound with TimeoutError, and leaves no waiter behind: the next
    release frees it for whoever comes next."""
    primitive = PRIMITIVES[kind]()
    while not primitive.locked():
        await primitive.acquire()
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        await acquire(primitive, within_s=0.1)
    assert 0.09 <= time.monotonic() - started < 1.0
    primitive.release()
    assert not primitive.locked()
    await asyncio.wait_for(acquire(primitive, within_s=0.1), timeout=1.0)
    assert primitive.locked()
