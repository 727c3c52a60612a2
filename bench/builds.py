"""Builds of the service side by side on one route, in alternating rounds: what a change costs
or saves, measured in the server rather than in a micro-benchmark.

    .venv/bin/python -m bench.builds [--route users-me] [--database sqlite|postgres]
        [--rounds 4] [--seconds 8] [--profile FILE] NAME=SRC[:KEY=VALUE,...] NAME=SRC ...

Each build is a source tree (`SRC`, a checkout or a copy holding `src/lisan`; `.` is this one)
with optional `LISAN_*` settings of its own. Each runs as `lisan serve` pinned to core 0 on a
database of its own (SQLite, or a fresh one on the local PostgreSQL) holding the bench's data
(`bench.speed.hot_routes.fill_service`); wrk (on the other cores, with this bench) loads them
in turn, round after round. Reported: each build's median server CPU per request and requests/s. To
price one layer, copy the tree, remove the layer, and run both:
`bench.builds base=. without-log=/tmp/copy`. With --profile FILE, py-spy records each build
through its first round (`FILE.<name>`; the mode as `bench.speed.profiling.profiled` reads
it), so what a removal leaves can be read build beside build.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
import tempfile
from pathlib import Path

from bench.kit.servers import ROOT, free_port, fresh_service_database, process
from bench.speed.build import Build
from bench.speed.hot_routes import ROUTES, SERVER_CORE, check, fill_service
from bench.speed.profiling import pin_load_away_from, profiled
from bench.speed.service import UNREFUSED_LIMITS
from bench.speed.wrk import Sample, median, wrk


def database_url(kind: str, build: Build, workdir: Path) -> str:
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{workdir}/{build.name}.db"
    return fresh_service_database("lisan_builds_" + re.sub(r"[^a-z0-9]", "_", build.name.lower()))


def environment(build: Build, database: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LISAN_")}
    env |= {
        "PYTHONPATH": f"{build.source / 'src'}:{ROOT}",
        "LISAN_DATABASE_URL": database,
        **UNREFUSED_LIMITS,
    }
    return env | build.settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--route", default="users-me", choices=[r.name for r in ROUTES])
    parser.add_argument("--database", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--profile", type=Path, help="py-spy raw output during round 1")
    parser.add_argument("builds", nargs="+", type=Build.parse)
    args = parser.parse_args()
    route = next(r for r in ROUTES if r.name == args.route)
    pin_load_away_from(SERVER_CORE)
    samples: dict[str, list[Sample]] = {build.name: [] for build in args.builds}
    with contextlib.ExitStack() as stack:
        workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="lisan-builds-")))
        targets = []
        for build in args.builds:
            port = free_port()
            url = f"http://127.0.0.1:{port}"
            command = ["taskset", "-c", SERVER_CORE, sys.executable, "-m", "lisan", "serve"]
            env = environment(build, database_url(args.database, build, workdir))
            pid = stack.enter_context(
                process([*command, "--port", str(port)], env, url + "/health")
            )
            headers = fill_service(url)
            check(url + route.path, headers, route.body)
            wrk(url + route.path, headers, 2, args.connections, route.body, pid)  # warm-up
            targets.append((build.name, url, headers, pid))
        for number in range(args.rounds):
            for name, url, headers, pid in targets:
                first = args.profile is not None and number == 0
                output = Path(f"{args.profile}.{name}") if first else None
                with profiled(pid, output, args.seconds):
                    sample = wrk(
                        url + route.path, headers, args.seconds, args.connections, route.body, pid
                    )
                samples[name].append(sample)
                print(
                    f"  round {number + 1} {name:16} {sample.requests_per_s:7.0f} req/s  "
                    f"CPU {sample.cpu_us:6.1f} us/req  non-2xx {sample.non_2xx}",
                    flush=True,
                )
    with open("/proc/loadavg") as load:
        print(f"load average {' '.join(load.read().split()[:3])}")
    print(f"\n| build | {route.path} CPU us/req | req/s | non-2xx |\n|---|---|---|---|")
    for name, taken in samples.items():
        typical = median(taken)
        print(
            f"| {name} | {typical.cpu_us:.1f} | {typical.requests_per_s:.0f} | {typical.non_2xx} |"
        )


if __name__ == "__main__":
    main()
