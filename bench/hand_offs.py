"""Handing a call off the event loop and back: CPU per hand-off, a lane against an executor.

    .venv/bin/python -m bench.hand_offs [--rounds 3] [--calls 20000]

A call that returns at once, handed to one thread and its answer awaited, on uvloop pinned to
one core as the servers of `bench.commands` are: through `loop.run_in_executor` on a
one-thread ThreadPoolExecutor (what the writer and speech presence used), and through a
`lisan.core.lanes.Lane`. With one call in flight (a command's units of work, one after
another) and with 16 (calls arriving together). Process CPU time per hand-off, both threads'.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor

import uvloop

from lisan.core.lanes import Lane

CORE = 0


def _answer() -> int:
    return 1


async def _cpu_per_hand_off(
    hand_off: Callable[[], Awaitable[int]], calls: int, flight: int
) -> float:
    async def one_after_another(count: int) -> None:
        for _ in range(count):
            await hand_off()

    started = time.process_time()
    await asyncio.gather(*(one_after_another(calls // flight) for _ in range(flight)))
    return (time.process_time() - started) / calls * 1e6


async def measure(rounds: int, calls: int) -> dict[tuple[str, int], list[float]]:
    loop = asyncio.get_running_loop()
    executor = ThreadPoolExecutor(max_workers=1)
    lane = Lane("bench-lane")

    async def through_executor() -> int:
        return await loop.run_in_executor(executor, _answer)

    async def through_lane() -> int:
        return await lane.run(_answer)

    ways = {"executor": through_executor, "lane": through_lane}
    seen: dict[tuple[str, int], list[float]] = {}
    try:
        for _ in range(rounds):  # alternating: each way's rounds meet the same machine
            for name, hand_off in ways.items():
                for flight in (1, 16):
                    us = await _cpu_per_hand_off(hand_off, calls, flight)
                    seen.setdefault((name, flight), []).append(us)
    finally:
        executor.shutdown()
        lane.close()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20_000)
    args = parser.parse_args()
    os.sched_setaffinity(0, {CORE})
    seen = uvloop.run(measure(args.rounds, args.calls))
    print(f"load average {os.getloadavg()[0]:.2f}; median of {args.rounds} rounds")
    print("| way | in flight | CPU us per hand-off |\n|---|---|---|")
    for (name, flight), figures in seen.items():
        print(f"| {name} | {flight} | {statistics.median(figures):.1f} |")


if __name__ == "__main__":
    main()
