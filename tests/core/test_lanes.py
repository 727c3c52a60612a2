"""`core.lanes`: blocking work handed off the event loop to threads of the service's own. A call
runs on a lane's thread in its caller's context and its answer or exception comes back to the
caller; a call nobody waits for any more by the time a thread takes it is never run; closing a
lane lets the calls already handed over run first and refuses new ones."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
import weakref

import pytest

from lisan.core.lanes import Lane, LaneClosed

WAIT_S = 5.0

caller: contextvars.ContextVar[str] = contextvars.ContextVar("caller", default="nobody")


# --- a call and its answer -------------------------------------------------------------------


async def test_a_call_runs_on_the_lanes_thread_and_its_answer_comes_back(lane: Lane) -> None:
    def where(plus: int) -> tuple[str, int]:
        return threading.current_thread().name, plus + 1

    name, answer = await lane.run(where, 41)
    assert name.startswith("test-lane")
    assert name != threading.current_thread().name
    assert answer == 42


async def test_a_calls_exception_is_raised_to_its_caller(lane: Lane) -> None:
    def fails() -> None:
        raise LookupError("not here")

    with pytest.raises(LookupError, match="not here"):
        await lane.run(fails)
    assert await lane.run(lambda: "still serving") == "still serving"


async def test_a_call_that_raises_stop_iteration_reaches_its_caller_as_a_runtime_error(
    lane: Lane,
) -> None:
    """A future cannot hold StopIteration: the caller gets a RuntimeError caused by it, as
    a generator's caller does, and never waits for ever."""
    with pytest.raises(RuntimeError) as raised:
        async with asyncio.timeout(WAIT_S):
            await lane.run(next, iter(()))
    assert isinstance(raised.value.__cause__, StopIteration)


async def test_a_call_sees_its_callers_context(lane: Lane) -> None:
    """The request's context variables (its id, its labels) are the call's too; what the call
    sets stays in its copy."""

    def reads_and_sets() -> str:
        seen = caller.get()
        caller.set("changed in the call")
        return seen

    caller.set("request 7")
    assert await lane.run(reads_and_sets) == "request 7"
    assert caller.get() == "request 7"


async def test_a_one_thread_lane_runs_calls_in_the_order_they_were_handed_over(
    lane: Lane,
) -> None:
    ran: list[int] = []
    await asyncio.gather(*(lane.run(ran.append, number) for number in range(50)))
    assert ran == list(range(50))


async def test_a_lane_of_several_threads_runs_that_many_calls_at_once() -> None:
    lane = Lane("test-wide", threads=3)
    all_in = threading.Barrier(3, timeout=WAIT_S)  # broken (and raising) unless 3 meet
    try:
        names = await asyncio.gather(
            *(lane.run(lambda: (all_in.wait(), threading.current_thread().name)[1]) for _ in "abc")
        )
    finally:
        lane.close(wait=True)
    assert len(set(names)) == 3


async def test_a_finished_calls_arguments_are_not_kept(lane: Lane) -> None:
    """The thread waiting for its next call holds nothing of the last one (a recording)."""

    class Recording:
        pass

    recording = Recording()
    kept = weakref.ref(recording)
    await lane.run(lambda _: None, recording)
    del recording
    await lane.run(lambda: None)  # the thread has moved on
    assert kept() is None


# --- a call nobody waits for -------------------------------------------------------------------


async def test_a_call_cancelled_before_its_turn_is_never_run(lane: Lane) -> None:
    release, ran = threading.Event(), list[str]()
    holding = lane.submit(release.wait, WAIT_S)
    queued = lane.submit(ran.append, "late")
    queued.cancel()
    release.set()
    assert await holding is True
    await lane.run(lambda: None)  # every call handed over before it is done
    assert ran == []


async def test_a_call_running_when_its_caller_stops_waiting_ends_and_is_dropped(
    lane: Lane,
) -> None:
    """A thread cannot be stopped: the call runs to its end, and its answer goes nowhere."""
    ended = threading.Event()

    def slow() -> str:
        time.sleep(0.2)
        ended.set()
        return "unwanted"

    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.05):
            await lane.run(slow)
    assert await lane.run(ended.wait, WAIT_S) is True
    assert await lane.run(lambda: "next") == "next"


def test_a_call_that_ends_after_its_loop_closed_leaves_the_lane_serving() -> None:
    lane = Lane("test-orphans")
    release = threading.Event()

    async def leave_one_behind() -> None:
        lane.submit(release.wait, WAIT_S)

    try:
        asyncio.run(leave_one_behind())  # its loop is closed when the call ends
        release.set()
        assert asyncio.run(lane.run(lambda: "served")) == "served"
    finally:
        lane.close(wait=True)


# --- closing -----------------------------------------------------------------------------------


async def test_closing_runs_the_calls_handed_over_first_and_refuses_new_ones() -> None:
    lane = Lane("test-closing")
    ran: list[int] = []
    handed = [lane.submit(time.sleep, 0.05), lane.submit(ran.append, 1)]
    lane.close(wait=True)
    assert ran == [1]
    await asyncio.gather(*handed)
    with pytest.raises(LaneClosed):
        await lane.run(ran.append, 2)
    assert ran == [1]
