"""Threads of the service's own for blocking work off the event loop: `await lane.run(call)`.

A lane is a few threads taking calls from one queue. Each call runs in a copy of the caller's
context (its request id and labels, for logs and metrics) and its answer is handed back to the
loop with one `call_soon_threadsafe`. A call whose future was cancelled before a thread took it
is dropped, never run late; one already running runs to its end, and its answer is dropped.

Why not `loop.run_in_executor`: a concurrent.futures hand-off makes a concurrent Future with
its own condition, a work item, an idle-thread semaphore taken and given back, and a chain of
callbacks between the two futures; a lane's hand-off is one queue put and one
`call_soon_threadsafe`, and a command makes three (`python -m bench.hand_offs` compares them;
see docs/benchmarks.md).
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import Callable
from contextlib import suppress
from typing import Any, TypeVar

T = TypeVar("T")

_Call = tuple[
    asyncio.AbstractEventLoop,
    "asyncio.Future[Any]",
    contextvars.Context,
    Callable[..., Any],
    tuple[Any, ...],
]


class LaneClosed(RuntimeError):
    """A call handed to a lane that was closed."""


class Lane:
    """`threads` threads named `name`, serving calls in the order they were handed over."""

    def __init__(self, name: str, *, threads: int = 1) -> None:
        self.name = name
        self._calls: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._closed = False
        self._threads = [
            threading.Thread(target=self._serve, name=f"{name}-{number}", daemon=True)
            for number in range(threads)
        ]
        for thread in self._threads:
            thread.start()

    def submit(self, call: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """The future of `call(*args)`, run on one of the lane's threads."""
        if self._closed:
            raise LaneClosed(f"the {self.name} lane is closed")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._calls.put((loop, future, contextvars.copy_context(), call, args))
        return future

    async def run(self, call: Callable[..., T], *args: Any) -> T:
        """`call(*args)`'s answer (or its exception), from one of the lane's threads."""
        return await self.submit(call, *args)

    def close(self, *, wait: bool = True) -> None:
        """No more calls; the calls already handed over run first. `wait`: until they have."""
        if self._closed:
            return
        self._closed = True
        for _ in self._threads:
            self._calls.put(None)
        if wait:
            for thread in self._threads:
                if thread is not threading.current_thread():
                    thread.join()

    def _serve(self) -> None:
        calls = self._calls
        while (handed := calls.get()) is not None:
            _serve_one(*handed)
            del handed  # the call's arguments are not kept while the thread waits


def _serve_one(
    loop: asyncio.AbstractEventLoop,
    future: asyncio.Future[Any],
    context: contextvars.Context,
    call: Callable[..., Any],
    args: tuple[Any, ...],
) -> None:
    if future.cancelled():  # a read of one flag: nobody waits for it any more
        return
    try:
        answer = context.run(call, *args)
    except BaseException as exc:  # as run_in_executor: the caller gets it
        _hand_back(loop, _fail, future, exc)
    else:
        _hand_back(loop, _succeed, future, answer)


def _hand_back(
    loop: asyncio.AbstractEventLoop,
    settle: Callable[[asyncio.Future[Any], Any], None],
    future: asyncio.Future[Any],
    outcome: Any,
) -> None:
    with suppress(RuntimeError):  # the loop is closed: nobody is left to tell
        loop.call_soon_threadsafe(settle, future, outcome)


def _succeed(future: asyncio.Future[Any], answer: Any) -> None:
    if not future.done():
        future.set_result(answer)


def _fail(future: asyncio.Future[Any], exc: BaseException) -> None:
    if future.done():
        return
    if isinstance(exc, StopIteration):  # no future may hold one: raised as a generator's is
        error = RuntimeError("a call on a lane raised StopIteration")
        error.__cause__ = exc
        exc = error
    future.set_exception(exc)
