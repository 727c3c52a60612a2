"""The in-process rate limit's cost per hit against the number of keys it holds: `limits`'
memory storage as shipped beside `lisan.core.ratelimit.swept_memory_storage`.

    .venv/bin/python -m bench.rate_limits [--hits 2000] [--keys 10 10000 50000]

Each hit is followed by one turn of the event loop, as requests are on a server (the library's
sweep of expired keys runs in a task between them). Reported: CPU per hit (process time).
"""

from __future__ import annotations

import argparse
import asyncio
import time

from limits import parse
from limits.aio.storage import MemoryStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter

from lisan.core.ratelimit import swept_memory_storage

LIMIT = parse("1000000000/minute")


async def cost_per_hit_us(storage: MemoryStorage, keys: int, hits: int) -> float:
    limiter = SlidingWindowCounterRateLimiter(storage)
    for key in range(keys):
        await limiter.hit(LIMIT, "client", str(key))
    await asyncio.sleep(0.2)  # the filling's own sweeps end
    started = time.process_time()
    for hit in range(hits):
        await limiter.hit(LIMIT, "client", str(hit % keys))
        await asyncio.sleep(0)
    return (time.process_time() - started) / hits * 1e6


async def run(keys: list[int], hits: int) -> None:
    print("| keys held | as shipped, us a hit | swept once a second, us a hit |")
    print("|---|---|---|")
    for count in keys:
        shipped = await cost_per_hit_us(MemoryStorage(), count, hits)
        swept = await cost_per_hit_us(swept_memory_storage(), count, hits)
        print(f"| {count} | {shipped:.1f} | {swept:.1f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hits", type=int, default=2000)
    parser.add_argument("--keys", type=int, nargs="+", default=[10, 10_000, 50_000])
    args = parser.parse_args()
    asyncio.run(run(args.keys, args.hits))


if __name__ == "__main__":
    main()
