"""Blocking file work on the recordings, run off the event loop with a bound on each call.

A thread cannot be stopped: a call that outlives its bound raises TimeoutError to its caller
and keeps running in its thread until the file system answers. So each worker runs its file
work on one thread of its own, one call at a time: a storage that hangs holds that one thread
(never the loop's shared pool), and every later call of that worker waits behind it and times
out in turn, so nothing that worker does counts on storage while a call is still stuck. A
call still queued when its bound ends is dropped, never run late.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from lisan.core.lanes import Lane

T = TypeVar("T")


class FileWork:
    def __init__(self, bound_s: float) -> None:
        self._bound_s = bound_s
        self._thread = Lane("lisan-files")

    async def run(self, call: Callable[[], T]) -> T:
        """`call()` on this worker's file thread; TimeoutError past the bound."""
        async with asyncio.timeout(self._bound_s):
            return await self._thread.run(call)

    def close(self) -> None:
        """No more calls; a call still running ends in its own time (its thread never holds
        up the process's exit)."""
        self._thread.close(wait=False)
