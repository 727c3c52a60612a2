"""Each hot read and write route against its raw-driver floor, side by side, on SQLite and
PostgreSQL.

    .venv/bin/python -m bench.routes [--database sqlite|postgres|both] [--rounds 5]
                                     [--route users-me ...] [--profile FILE]

The floors are `bench/floors/floor_routes.py`: the shared floor (`bench/floors/floor_app.py`, a
verbatim copy of `../shared/bench/floor_app.py`, for `/v1/users/me` and `/v1/vocabulary`) and
the ones written in its style for app-grants, entitlement and telemetry; the routes and the
service's data are `bench/speed/hot_routes.py`. The service and the floor each run as one
uvicorn process pinned to core 0 (`taskset`), each on a database of its own holding the
same data (one user and device, 50 vocabulary terms, 8 apps decided 12 times); wrk (one thread,
on the other cores with this bench) loads them in alternating rounds. Reported per route:
median requests/s, p50/p99, the ratio of the service's throughput to the floor's, and the
server's CPU per request (its process's user + system time over the round, from /proc, over the
requests wrk completed). With --profile FILE, py-spy records each server through its first
round of each route (`FILE.<database>.<route>.service` and `.floor`; see
`bench.speed.profiling.profiled`).
Needs `wrk` and `taskset` and, for PostgreSQL, the server at 127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.floors import floor_app
from bench.kit.servers import free_port, fresh_postgres_database, fresh_service_database, process
from bench.speed.hot_routes import ROUTES, SERVER_CORE, Route, check, fill_service
from bench.speed.profiling import pin_load_away_from, profiled
from bench.speed.service import UNREFUSED_LIMITS
from bench.speed.wrk import Sample, median, wrk

POSTGRES = "postgresql://postgres@127.0.0.1:5432/"


def fresh_databases(kind: str, workdir: Path) -> tuple[str, dict[str, str]]:
    """The service's database URL and the floor's environment, each a new, empty database."""
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{workdir}/service.db", {"FLOOR_DB": f"{workdir}/floor.db"}
    fresh_postgres_database("lisan_floor")
    return fresh_service_database("lisan_bench"), {"FLOOR_PG": POSTGRES + "lisan_floor"}


def run(
    kind: str,
    routes: list[Route],
    rounds: int,
    seconds: int,
    connections: int,
    profile: Path | None = None,
) -> dict[str, tuple[Sample, Sample]]:
    workdir = Path(tempfile.mkdtemp(prefix="lisan-bench-"))
    service_db, floor_env = fresh_databases(kind, workdir)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LISAN_", "FLOOR_"))},
        "LISAN_DATABASE_URL": service_db,
        **UNREFUSED_LIMITS,
    }
    floor_env = {**env, **floor_env}
    subprocess.run(
        [sys.executable, "-m", "bench.floors.floor_routes", "setup"], env=floor_env, check=True
    )
    service_port, floor_port = free_port(), free_port()
    pinned = ["taskset", "-c", SERVER_CORE, sys.executable]
    service_cmd = [*pinned, "-m", "lisan", "serve", "--port", str(service_port)]
    floor_cmd = [
        *pinned,
        "-m",
        "uvicorn",
        "bench.floors.floor_routes:app",
        "--port",
        str(floor_port),
    ]
    floor_cmd += ["--no-access-log", "--log-level", "warning"]
    service_url, floor_url = f"http://127.0.0.1:{service_port}", f"http://127.0.0.1:{floor_port}"
    results: dict[str, tuple[Sample, Sample]] = {}
    with process(service_cmd, env, f"{service_url}/health") as service_pid:
        service_headers = fill_service(service_url)
        floor_headers = {
            "Authorization": f"Bearer {floor_app.TOKEN}",
            "X-Install-ID": floor_app.INSTALL,
        }
        with process(floor_cmd, floor_env, f"{floor_url}/v1/users/me") as floor_pid:
            targets = {
                "service": (service_url, service_headers, service_pid),
                "floor": (floor_url, floor_headers, floor_pid),
            }
            for route in routes:
                samples: dict[str, list[Sample]] = {"service": [], "floor": []}
                for base, headers, pid in targets.values():
                    check(base + route.path, headers, route.body)
                    wrk(base + route.path, headers, 2, connections, route.body, pid)  # warm-up
                for round_number in range(rounds):
                    for name, (base, headers, pid) in targets.items():
                        spied = None
                        if profile is not None and round_number == 0:
                            spied = profile.with_name(f"{profile.name}.{kind}.{route.name}.{name}")
                        with profiled(pid, spied, seconds):
                            sample = wrk(
                                base + route.path, headers, seconds, connections, route.body, pid
                            )
                        samples[name].append(sample)
                        print(
                            f"  {kind} {route.name} round {round_number + 1} {name:7}: "
                            f"{sample.requests_per_s:8.0f} req/s  p50 {sample.p50_ms:6.2f} ms  "
                            f"p99 {sample.p99_ms:7.2f} ms  CPU {sample.cpu_us:6.0f} us/req  "
                            f"non-2xx {sample.non_2xx}",
                            flush=True,
                        )
                results[route.name] = (median(samples["service"]), median(samples["floor"]))
    shutil.rmtree(workdir, ignore_errors=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--route", action="append", choices=[r.name for r in ROUTES])
    parser.add_argument("--profile", type=Path, help="py-spy raw output during round 1")
    args = parser.parse_args()
    for tool in ("wrk", "taskset"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} is not installed (Debian: apt-get install wrk util-linux)")
    routes = [r for r in ROUTES if args.route is None or r.name in args.route]
    pin_load_away_from(SERVER_CORE)
    kinds = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} alternating rounds")
    results = {
        kind: run(kind, routes, args.rounds, args.seconds, args.connections, args.profile)
        for kind in kinds
    }
    print(
        "\n| route | database | service req/s | floor req/s | ratio | service CPU us/req "
        "| floor CPU us/req | service p50/p99 ms | floor p50/p99 ms | non-2xx |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, by_route in results.items():
        for route in routes:
            service, floor = by_route[route.name]
            print(
                f"| {'POST' if route.body else 'GET'} {route.path} | {kind} "
                f"| {service.requests_per_s:.0f} | {floor.requests_per_s:.0f} "
                f"| {service.requests_per_s / floor.requests_per_s:.2f} "
                f"| {service.cpu_us:.0f} | {floor.cpu_us:.0f} "
                f"| {service.p50_ms:.1f} / {service.p99_ms:.1f} "
                f"| {floor.p50_ms:.1f} / {floor.p99_ms:.1f} | {service.non_2xx + floor.non_2xx} |"
            )


if __name__ == "__main__":
    main()
