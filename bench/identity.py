"""GET /v1/users/me against its floor (bench/floor.py), side by side, on SQLite and PostgreSQL.

    .venv/bin/python -m bench.identity [--database sqlite|postgres|both] [--rounds 5]

Both servers run as one uvicorn process each (uvloop, httptools) on the same database with the
same registered device; wrk (one thread, same connections and duration) loads them in
alternating rounds. Reported: median requests/s, median p50/p99 latency, and the ratio of the
service's throughput to the floor's. Needs `wrk` (Debian package) and, for PostgreSQL, the
server at 127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import asyncio
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

from bench.common import free_port, process, wrk_field, wrk_millis

POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
POSTGRES_BENCH = "postgresql+asyncpg://postgres@127.0.0.1:5432/lisan_bench"
INSTALL_ID = "bench-install-0000000001"


@dataclass
class Sample:
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int


def wrk(url: str, headers: dict[str, str], seconds: int, connections: int) -> Sample:
    command = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    output = subprocess.run([*command, url], capture_output=True, text=True, check=True).stdout
    try:
        rate = float(wrk_field(r"Requests/sec:\s+([\d.]+)", output))
        p50 = wrk_millis(wrk_field(r"\s50%\s+(\S+)", output))
        p99 = wrk_millis(wrk_field(r"\s99%\s+(\S+)", output))
    except ValueError as exc:
        raise SystemExit(f"{exc}\n--- wrk output ---\n{output}") from None
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return Sample(rate, p50, p99, int(errors.group(1)) if errors else 0)


def prepare_database(kind: str, workdir: Path) -> str:
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{workdir}/bench.db"

    async def recreate() -> None:
        import asyncpg

        connection = await asyncpg.connect(POSTGRES_ADMIN)
        await connection.execute("DROP DATABASE IF EXISTS lisan_bench WITH (FORCE)")
        await connection.execute("CREATE DATABASE lisan_bench")
        await connection.close()

    asyncio.run(recreate())
    return POSTGRES_BENCH


def run(kind: str, rounds: int, seconds: int, connections: int) -> tuple[Sample, Sample]:
    workdir = Path(tempfile.mkdtemp(prefix="lisan-bench-"))
    url = prepare_database(kind, workdir)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("LISAN_")},
        "LISAN_DATABASE_URL": url,
        # The limiter still runs on every request; it just never says no during the bench.
        "LISAN_RATE_LIMIT_USER": "1000000000/minute",
        "LISAN_RATE_LIMIT_IP": "1000000000/minute",
        "LISAN_RATE_LIMIT_REGISTER": "1000000000/minute",
    }
    service_port, floor_port = free_port(), free_port()
    service_cmd = [sys.executable, "-m", "lisan", "serve", "--port", str(service_port)]
    floor_cmd = [
        sys.executable,
        "-m",
        "uvicorn",
        "bench.floor:app",
        "--port",
        str(floor_port),
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    service_url, floor_url = f"http://127.0.0.1:{service_port}", f"http://127.0.0.1:{floor_port}"
    with process(service_cmd, env, f"{service_url}/v1/users/me"):
        token = httpx.post(
            f"{service_url}/v1/auth/register-device", json={"install_id": INSTALL_ID}
        ).json()["session_token"]
        headers = {"Authorization": f"Bearer {token}", "X-Install-ID": INSTALL_ID}
        with process(floor_cmd, env, f"{floor_url}/v1/users/me"):
            targets = {"service": f"{service_url}/v1/users/me", "floor": f"{floor_url}/v1/users/me"}
            for target in targets.values():
                assert httpx.get(target, headers=headers).status_code == 200
                wrk(target, headers, 2, connections)  # warm-up
            samples: dict[str, list[Sample]] = {"service": [], "floor": []}
            for round_number in range(rounds):
                for name, target in targets.items():
                    sample = wrk(target, headers, seconds, connections)
                    samples[name].append(sample)
                    print(
                        f"  {kind} round {round_number + 1} {name:7}: "
                        f"{sample.requests_per_s:8.0f} req/s  p50 {sample.p50_ms:6.2f} ms  "
                        f"p99 {sample.p99_ms:6.2f} ms  non-2xx {sample.non_2xx}",
                        flush=True,
                    )
    shutil.rmtree(workdir, ignore_errors=True)
    return median(samples["service"]), median(samples["floor"])


def median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.requests_per_s for s in samples),
        statistics.median(s.p50_ms for s in samples),
        statistics.median(s.p99_ms for s in samples),
        sum(s.non_2xx for s in samples),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    kinds = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    print(f"wrk -t1 -c{args.connections} -d{args.seconds}s, {args.rounds} alternating rounds")
    results = {kind: run(kind, args.rounds, args.seconds, args.connections) for kind in kinds}
    print(
        "\nmedians          service req/s  floor req/s  ratio  service p50/p99 ms  floor p50/p99 ms"
    )
    for kind, (service, floor) in results.items():
        print(
            f"{kind:16} {service.requests_per_s:13.0f} {floor.requests_per_s:12.0f} "
            f"{service.requests_per_s / floor.requests_per_s:6.2f}  "
            f"{service.p50_ms:8.2f}/{service.p99_ms:<8.2f}  {floor.p50_ms:8.2f}/{floor.p99_ms:.2f}"
        )


if __name__ == "__main__":
    main()
