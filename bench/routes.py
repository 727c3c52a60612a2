"""Each hot read and write route against its raw-driver floor, side by side, on SQLite and
PostgreSQL.

    .venv/bin/python -m bench.routes [--database sqlite|postgres|both] [--rounds 5]
                                     [--route users-me ...] [--profile FILE]

The floors are `bench/floors/floor_routes.py`: the shared floor (`bench/floors/floor_app.py`, a
verbatim copy of `../shared/bench/floor_app.py`, for `/v1/users/me` and `/v1/vocabulary`) and
the ones written in its style for app-grants, entitlement and telemetry. The service and the floor each run as
one uvicorn process pinned to core 0 (`taskset`), each on a database of its own holding the
same data (one user and device, 50 vocabulary terms, 8 apps decided 12 times); wrk (one thread,
on the other cores with this bench) loads them in alternating rounds. Reported per route:
median requests/s, p50/p99, the ratio of the service's throughput to the floor's, and the
server's CPU per request (its process's user + system time over the round, from /proc, over the
requests wrk completed). With --profile FILE, py-spy records each server through its first
round of each route (`FILE.<database>.<route>.service` and `.floor`; see
`bench.common.profiled`).
Needs `wrk` and `taskset` and, for PostgreSQL, the server at 127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx

from bench.common import (
    cpu_seconds,
    free_port,
    fresh_postgres_database,
    fresh_service_database,
    pin_load_away_from,
    process,
    profiled,
    wrk_field,
    wrk_millis,
)
from bench.floors import floor_app
from bench.floors.floor_routes import PACKAGES
from bench.service import UNREFUSED_LIMITS

POSTGRES = "postgresql://postgres@127.0.0.1:5432/"
INSTALL_ID = "bench-install-0000000001"
SERVER_CORE = "0"  # the servers'; wrk and this bench run on the other cores
EVENT = b'{"outcome":"done","duration_ms":1240,"confidence":0.91,"stage_timings":{"transcribe":310,"plan":295,"validate":2}}'  # noqa: E501


@dataclass(frozen=True)
class Route:
    name: str
    path: str
    body: bytes | None = None  # a POST's JSON body


ROUTES = [
    Route("users-me", "/v1/users/me"),
    Route("vocabulary", "/v1/vocabulary"),
    Route("app-grants", "/v1/app-grants"),
    Route("entitlement", "/v1/billing/entitlement"),
    Route("telemetry", "/v1/telemetry/events", EVENT),
]


@dataclass
class Sample:
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    cpu_us: float  # server CPU per request


def wrk(
    url: str, headers: dict[str, str], seconds: int, connections: int, body: bytes | None, pid: int
) -> Sample:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s"]
    command.append("--latency")
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    with tempfile.NamedTemporaryFile("w", suffix=".lua") as script:
        if body is not None:
            script.write(
                f'wrk.method = "POST"\nwrk.body = [[{body.decode()}]]\n'
                'wrk.headers["Content-Type"] = "application/json"\n'
            )
            script.flush()
            command += ["-s", script.name]
        before = cpu_seconds(pid)
        output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
        used = cpu_seconds(pid) - before
    try:
        rate = float(wrk_field(r"Requests/sec:\s+([\d.]+)", output))
        p50 = wrk_millis(wrk_field(r"\s50%\s+(\S+)", output))
        p99 = wrk_millis(wrk_field(r"\s99%\s+(\S+)", output))
        requests = int(wrk_field(r"(\d+) requests in", output))
    except ValueError as exc:
        raise SystemExit(f"{exc}\n--- wrk output ---\n{output}") from None
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    cpu_us = used / max(requests, 1) * 1e6
    return Sample(rate, p50, p99, int(errors.group(1)) if errors else 0, cpu_us)


def fresh_databases(kind: str, workdir: Path) -> tuple[str, dict[str, str]]:
    """The service's database URL and the floor's environment, each a new, empty database."""
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{workdir}/service.db", {"FLOOR_DB": f"{workdir}/floor.db"}
    fresh_postgres_database("lisan_floor")
    return fresh_service_database("lisan_bench"), {"FLOOR_PG": POSTGRES + "lisan_floor"}


def fill_service(url: str) -> dict[str, str]:
    """Register the bench's device and give it the floor's data; returns its headers."""
    with httpx.Client(base_url=url, timeout=30) as client:
        token = client.post("/v1/auth/register-device", json={"install_id": INSTALL_ID}).json()[
            "session_token"
        ]
        headers = {"Authorization": f"Bearer {token}", "X-Install-ID": INSTALL_ID}
        for number in range(50):
            kind = "contact" if number % 2 else "app"
            term = {"term": f"term {number:02d}", "kind": kind}
            client.post("/v1/vocabulary", json=term, headers=headers).raise_for_status()
        for number, package in enumerate(PACKAGES):
            decisions = [True, False, True] if number % 2 else [True]
            for granted in decisions:
                grant = {"package_name": package, "granted": granted}
                client.post("/v1/app-grants", json=grant, headers=headers).raise_for_status()
    return headers


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
    subprocess.run([sys.executable, "-m", "bench.floors.floor_routes", "setup"], env=floor_env, check=True)
    service_port, floor_port = free_port(), free_port()
    pinned = ["taskset", "-c", SERVER_CORE, sys.executable]
    service_cmd = [*pinned, "-m", "lisan", "serve", "--port", str(service_port)]
    floor_cmd = [*pinned, "-m", "uvicorn", "bench.floors.floor_routes:app", "--port", str(floor_port)]
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


def check(url: str, headers: dict[str, str], body: bytes | None) -> None:
    """The route answers as the bench expects before it is loaded."""
    if body is None:
        answer = httpx.get(url, headers=headers)
    else:
        answer = httpx.post(
            url, content=body, headers=headers | {"content-type": "application/json"}
        )
    if answer.status_code not in (200, 202):
        raise SystemExit(f"{url} answered {answer.status_code}: {answer.text[:200]}")


def median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.requests_per_s for s in samples),
        statistics.median(s.p50_ms for s in samples),
        statistics.median(s.p99_ms for s in samples),
        sum(s.non_2xx for s in samples),
        statistics.median(s.cpu_us for s in samples),
    )


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
