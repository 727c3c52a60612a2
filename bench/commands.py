"""POST /v1/commands under load, against a fake provider that answers every call after a delay,
beside its raw floor.

    .venv/bin/python -m bench.commands [--database sqlite|postgres|both] [--seconds 30]
        [--connections 64] [--delay 0.3] [--rounds 2] [--workers 1] [--profile FILE]
        [--server-log FILE] [--no-floor] [--core 0|none] [--beside NAME=SRC[:LISAN_X=V,...]]

The measurement: 64 clients (200 for the overload run), each sending a 5-second command (real
speech, "open telegram", padded to 5 s), with a provider that answers after 300 ms. Per
database, on a fresh one: the fake provider (lisan/testing/openai_server.py), `lisan serve`
(--workers, default 1; default INFO logging sent to /dev/null) and, unless --no-floor, the raw
floor (bench/speed/commands_floor.py) run as separate processes, both servers pinned to --core;
one device is registered and granted Telegram; wrk (bench/commands.lua) posts the same body
with a new X-Idempotency-Key on every request: a 3 s warm-up, then --rounds measured rounds (2) of
--seconds each, each followed by a round of the floor. The headline figure is the
ratio floor / Lisan of the servers' CPU per command, medians over the alternating rounds.

Reported per round:
- requests/s and p50/p99 latency as wrk sees them, and the HTTP statuses received;
- the same latencies minus the provider's time. A command makes TWO provider calls
  (transcription, then the plan), so the provider holds every command for 2 x delay: "minus
  provider" subtracts that, and is the end-to-end estimate of the service's own time: everything
  the client waits for that is not the provider (HTTP edge, auth, body parsing, the pipeline,
  the final write, and any queueing for the event loop or a connection pool under this load).
  The issue words it "minus the 300 ms" (one delay); that column is printed too, but it still
  holds one provider wait;
- the service's own time inside the pipeline, from the command_events rows the round wrote:
  server_timings total - transcription - planning (whole ms each, so +/- 1.5 ms). It covers
  the idempotency claim with the vocabulary and consent reads, the voice activity check, the
  grants read, plan validation and the answer's serialisation, including any queueing for them
  (a core, a database connection); not authentication, reading and parsing the body, or the
  final writes (event, bill, idempotent answer). The provider stages themselves include our
  side of each call (WAV and multipart encoding, httpx, waiting for a pooled connection), so
  that time counts as the provider's;
- the server's CPU time (user + system, from /proc, over all its processes with --workers)
  per command recorded: what one command costs the service, with no queueing in it; beside
  it, what the fake provider and PostgreSQL spent per command and how busy the machine's
  cores were. With --core (the default, 0), the servers run on that core and this bench, wrk
  and the fake provider on the others (PostgreSQL where the system puts it), so that the load
  neither preempts the server it measures nor takes its caches; once the cores are busy the
  latencies are mostly queueing for one;
- the server's RSS (VmRSS polled every 0.5 s): at ~5 s, at the end, and the peak. Memory that
  does not grow with the commands served shows as the last round's peak close to round 1's.

With --beside NAME=SRC (repeatable), another build of the service (a source tree holding
`src/lisan`, e.g. a worktree of the commit before a change, with `LISAN_*` settings of its own
after a colon, as `bench.builds` takes them) runs beside this one on a database of its own and
is loaded in each round between the service and the floor, measured as the floor is (CPU per
command wrk saw answered): a change's before and after in one run, alternating, each with its
ratio to the same floor.

With --profile FILE, py-spy records the server (raw, folded stacks; see
`bench.speed.profiling.profiled`) for up to 15 s of round 1 of each database (FILE gets the
database's name as a suffix); with --server-log FILE, the server's log (stderr) is appended to FILE
instead of going to /dev/null.
Needs `wrk`, espeak-ng and sox and, for PostgreSQL, the server at 127.0.0.1:5432.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import secrets
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from bench.kit.cpu import cpu_seconds, machine_cpu, postgres_cpu_seconds, process_tree
from bench.kit.servers import ROOT, free_port, fresh_service_database, process
from bench.speed.build import Build
from bench.speed.commands_floor import answer, floor_command, floor_env, floor_headers, same_answer
from bench.speed.commands_measures import FloorRound, Load, Memory, Results, Round
from bench.speed.commands_report import (
    print_beside_round,
    print_floor_round,
    print_ratio,
    print_round,
    print_table,
)
from bench.speed.profiling import pin_load_away_from, profiled
from bench.speed.service import LAUNCHER, VIEW_TREE, ready_device, server_env
from bench.speed.wrk import wrk_field, wrk_millis
from lisan.testing.speech import b64, padded, spoken

LUA_SCRIPT = ROOT / "bench" / "commands.lua"
POSTGRES_DATABASE = "lisan_bench_commands"
POSTGRES_BENCH = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{POSTGRES_DATABASE}"
COMMAND_SECONDS = 5.0
WARM_UP_S = 3
RSS_POLL_S = 0.5
FLOOR_SETTLE_S = 2.0  # the floor records no events to wait for: its in-flight commands end in this
SETTLE_LIMIT_S = 20.0  # after a round, how long in-flight commands get to finish and be recorded
PROFILE_LIMIT_S = 15


# --- processes -------------------------------------------------------------------------------


class RssSampler:
    """Polls VmRSS of `pid` every RSS_POLL_S in a thread, between start() and stop()."""

    def __init__(self, pid: int) -> None:
        self._pid = pid
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, daemon=True)
        self.memory = Memory()

    def __enter__(self) -> Memory:
        self._started = time.monotonic()
        self.memory.samples.append((0.0, self._read("VmRSS")))
        self._thread.start()
        return self.memory

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        with contextlib.suppress(OSError, ValueError):  # the server is gone: keep what was sampled
            self.memory.samples.append((time.monotonic() - self._started, self._read("VmRSS")))
            self.memory.high_water_kib = self._read("VmHWM")

    def _poll(self) -> None:
        while not self._stop.wait(RSS_POLL_S):
            try:
                kib = self._read("VmRSS")
            except (OSError, ValueError):
                return  # the process is gone
            self.memory.samples.append((time.monotonic() - self._started, kib))

    def _read(self, name: str) -> int:
        """The sum over the server's processes (the supervisor and its workers, if any)."""
        total = 0
        for member in process_tree(self._pid):
            status = Path(f"/proc/{member}/status")
            match = re.search(rf"^{name}:\s+(\d+) kB", status.read_text(), re.MULTILINE)
            if match is None:
                raise ValueError(f"no {name} in {status}")
            total += int(match.group(1))
        return total


# --- wrk -------------------------------------------------------------------------------------


def wrk(url: str, headers: dict[str, str], body_file: Path, seconds: int, connections: int) -> Load:
    nonce = secrets.token_hex(4)  # this run's keys never collide with another run's
    threads = min(2, connections)  # wrk wants at least one connection per thread
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{connections}",
        f"-d{seconds}s",
        "--timeout",
        "10s",
        "--latency",
    ]
    command += ["-s", str(LUA_SCRIPT)]
    for name, value in headers.items():
        command += ["-H", f"{name}: {value}"]
    finished = subprocess.run(
        [*command, url, str(body_file), nonce],
        capture_output=True,
        text=True,
        check=False,
        timeout=seconds + 60,
    )
    output = finished.stdout
    if finished.returncode != 0:
        raise SystemExit(f"wrk failed ({finished.returncode}): {finished.stderr}\n{output}")
    try:
        load = Load(
            requests=int(wrk_field(r"(\d+) requests in", output)),
            requests_per_s=float(wrk_field(r"Requests/sec:\s+([\d.]+)", output)),
            p50_ms=wrk_millis(wrk_field(r"\s50%\s+(\S+)", output)),
            p99_ms=wrk_millis(wrk_field(r"\s99%\s+(\S+)", output)),
            non_2xx=0,
            socket_errors=0,
            socket_detail="none",
            statuses=Counter(),
        )
    except ValueError as exc:
        raise SystemExit(f"{exc}\n--- wrk output ---\n{output}") from None
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    load.non_2xx = int(non_2xx.group(1)) if non_2xx else 0
    errors = re.search(
        r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", output
    )
    if errors is not None:
        load.socket_errors = sum(int(n) for n in errors.groups())
        load.socket_detail = errors.group(0).removeprefix("Socket errors: ")
    for status, count in re.findall(r"^status (\d+) (\d+)$", output, re.MULTILINE):
        load.statuses[int(status)] += int(count)
    return load


# --- the database ----------------------------------------------------------------------------


def prepare_database(kind: str, workdir: Path, suffix: str = "") -> str:
    """A fresh database for one server: the service's (no suffix), or another build's."""
    if kind == "sqlite":
        return f"sqlite+aiosqlite:///{workdir}/bench{suffix}.db"
    return fresh_service_database(POSTGRES_DATABASE + suffix)


EVENTS_QUERY = "SELECT id, status, server_timings FROM command_events"


def command_events(kind: str, workdir: Path) -> dict[str, tuple[str, dict[str, int]]]:
    """Every command_events row, read behind the service's back: id -> (status, timings)."""
    if kind == "sqlite":
        # closing(): sqlite3's own context manager ends the transaction, not the connection.
        with contextlib.closing(sqlite3.connect(workdir / "bench.db", timeout=30)) as connection:
            rows: list[Any] = connection.execute(EVENTS_QUERY).fetchall()
    else:

        async def fetch() -> list[Any]:
            import asyncpg

            connection = await asyncpg.connect(POSTGRES_BENCH.replace("+asyncpg", ""))
            try:
                return list(await connection.fetch(EVENTS_QUERY))
            finally:
                await connection.close()

        rows = asyncio.run(fetch())
    return {str(row[0]): (str(row[1]), _timings(row[2])) for row in rows}


def _timings(value: Any) -> dict[str, int]:
    parsed = json.loads(value) if isinstance(value, str | bytes) else value
    return dict(parsed or {})


def settled_events(kind: str, workdir: Path) -> dict[str, tuple[str, dict[str, int]]]:
    """The events once the commands still running when wrk stopped have been recorded: the
    count has not changed for a second (or SETTLE_LIMIT_S passed)."""
    deadline = time.monotonic() + SETTLE_LIMIT_S
    events = command_events(kind, workdir)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        latest = command_events(kind, workdir)
        if len(latest) == len(events):
            return latest
        events = latest
    return events


# --- the run ---------------------------------------------------------------------------------


def command_body() -> bytes:
    pcm = padded(spoken("open telegram", "en-US"), COMMAND_SECONDS)
    body = {
        "audio_base64": b64(pcm),
        "duration_ms": int(COMMAND_SECONDS * 1000),
        "language": "en-US",
        "screen_context": {"current_package": LAUNCHER, "view_tree_summary": VIEW_TREE},
    }
    return json.dumps(body).encode()


@dataclass
class Options:
    seconds: int
    connections: int
    delay_s: float
    rounds: int
    profile: Path | None
    server_log: Path | None
    workers: int
    floor: bool  # run the raw floor beside the service, in alternating rounds
    core: str | None  # the core both servers are pinned to (taskset), or None
    beside: list[Build] = field(default_factory=list)  # other builds, in the same rounds
    said: str | None = None  # what the fake transcriber hears (None: its default)


Target = tuple[str, dict[str, str], int]  # a server's command URL, headers and pid


def start_beside(
    build: Build,
    number: int,
    kind: str,
    env: dict[str, str],
    options: Options,
    servers: contextlib.ExitStack,
    workdir: Path,
) -> Target:
    """Another build of the service (`--beside`), on a database of its own, its device ready."""
    port = free_port()
    build_env = {
        **env,
        "LISAN_DATABASE_URL": prepare_database(kind, workdir, f"_{number}"),
        "LISAN_METRICS_PORT": str(free_port()),
        "PYTHONPATH": f"{build.source / 'src'}:{ROOT}",
        **build.settings,
    }
    base = f"http://127.0.0.1:{port}"
    pid = servers.enter_context(
        process(serve_command(port, options), build_env, f"{base}/v1/users/me")
    )
    return f"{base}/v1/commands", ready_device(base), pid


def serve_command(port: int, options: Options) -> list[str]:
    """`lisan serve` as the bench runs it: pinned to --core, with --workers."""
    pinned = ["taskset", "-c", options.core] if options.core is not None else []
    command = [*pinned, sys.executable, "-m", "lisan", "serve", "--port", str(port)]
    return [*command, "--workers", str(options.workers)]


def run(kind: str, options: Options) -> Results:
    workdir = Path(tempfile.mkdtemp(prefix="lisan-bench-commands-"))
    try:
        return _run_in(kind, options, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _run_in(kind: str, options: Options, workdir: Path) -> Results:
    database_url = prepare_database(kind, workdir)
    provider_port, service_port = free_port(), free_port()
    provider_cmd = [
        sys.executable,
        "-m",
        "lisan.testing.openai_server",
        "--port",
        str(provider_port),
    ]
    provider_cmd += ["--delay", str(options.delay_s)]
    if options.said is not None:
        provider_cmd += ["--said", options.said]
    metrics_port = free_port()
    env = {
        **server_env(database_url, provider_port, workdir),
        "LISAN_METRICS_PORT": str(metrics_port),
    }
    base = f"http://127.0.0.1:{service_port}"
    body_file = workdir / "command.json"
    body_file.write_bytes(command_body())
    results = Results([], [])
    with contextlib.ExitStack() as servers:
        provider_pid = servers.enter_context(
            process(provider_cmd, env, f"http://127.0.0.1:{provider_port}/")
        )
        server_pid = servers.enter_context(
            process(
                serve_command(service_port, options), env, f"{base}/v1/users/me", options.server_log
            )
        )
        headers = ready_device(base)
        url = f"{base}/v1/commands"
        said = answer(url, headers, body_file.read_bytes())
        wrk(url, headers, body_file, WARM_UP_S, options.connections)
        floor: tuple[str, dict[str, str], int] | None = None
        if options.floor:
            floor_port = free_port()
            fenv = floor_env(kind, provider_port, workdir)
            floor_url = f"http://127.0.0.1:{floor_port}/v1/commands"
            floor_pid = servers.enter_context(
                process(floor_command(floor_port, options.core), fenv, floor_url)
            )
            floor = (floor_url, floor_headers(fenv), floor_pid)
            same_answer(said, answer(floor_url, floor[1], body_file.read_bytes()))
            wrk(floor_url, floor[1], body_file, WARM_UP_S, options.connections)
        beside: dict[str, Target] = {}
        for number, build in enumerate(options.beside, start=1):
            target = start_beside(build, number, kind, env, options, servers, workdir)
            same_answer(said, answer(target[0], target[1], body_file.read_bytes()))
            wrk(target[0], target[1], body_file, WARM_UP_S, options.connections)
            beside[build.name] = target
            results.beside[build.name] = []
        seen = settled_events(kind, workdir)
        for number in range(1, options.rounds + 1):
            profile = None
            if options.profile is not None and number == 1:
                profile = options.profile.with_name(f"{options.profile.name}.{kind}")
            seconds = min(PROFILE_LIMIT_S, options.seconds)
            cpu_before = cpu_seconds(server_pid)
            provider_cpu_before = cpu_seconds(provider_pid)
            postgres_before, machine_before = postgres_cpu_seconds(), machine_cpu()
            with RssSampler(server_pid) as memory, profiled(server_pid, profile, seconds):
                load = wrk(url, headers, body_file, options.seconds, options.connections)
            # Read before settling: the bench's own polling of command_events costs the
            # database (and the machine) CPU that no command spent.
            postgres_cpu_s = postgres_cpu_seconds() - postgres_before
            busy = _busy_since(machine_before)
            events = settled_events(kind, workdir)
            cpu_s = cpu_seconds(server_pid) - cpu_before
            provider_cpu_s = cpu_seconds(provider_pid) - provider_cpu_before
            fresh = [value for key, value in events.items() if key not in seen]
            seen = events
            lisan = Round(load, memory, fresh, cpu_s, provider_cpu_s, postgres_cpu_s, busy)
            results.lisan.append(lisan)
            print_round(kind, number, lisan)
            for name, target in beside.items():
                results.beside[name].append(floor_round(target, body_file, options, None))
                print_beside_round(kind, number, name, results.beside[name][-1], lisan)
            if floor is not None:
                results.floor.append(floor_round(floor, body_file, options, profile))
                print_floor_round(kind, number, results.floor[-1], lisan)
        results.refusals = refusals_counted(metrics_port)
        print(f"  {kind}: what the service counted of its 5xx and refusals: {results.refusals}")
    return results


# What the service counts of an answer it could not give: overload (no database connection or
# provider slot free in time) apart from an outage (the database or the provider down).
COUNTED = re.compile(
    r'^(lisan_db_faults_total\{kind="\w+"\}'
    r'|lisan_provider_calls_total\{call="\w+",outcome="(?:busy|unavailable|timeout|connection)"\}'
    r'|lisan_http_requests_total\{[^}]*status="5\d\d"[^}]*\}) (\S+)$',
    re.MULTILINE,
)


def refusals_counted(metrics_port: int) -> dict[str, float]:
    text = httpx.get(f"http://127.0.0.1:{metrics_port}/metrics", timeout=10).text
    return {name: float(value) for name, value in COUNTED.findall(text) if float(value)}


def _busy_since(machine_before: tuple[float, float]) -> float:
    machine_after = machine_cpu()
    return (machine_after[0] - machine_before[0]) / (machine_after[1] - machine_before[1])


def floor_round(
    floor: Target,
    body_file: Path,
    options: Options,
    profile: Path | None,
) -> FloorRound:
    """A round of the floor, measured as the service's: CPU until the commands in flight
    when wrk stopped have ended (FLOOR_SETTLE_S), per command wrk saw answered."""
    url, headers, pid = floor
    cpu_before, machine_before = cpu_seconds(pid), machine_cpu()
    spied = profile.with_name(f"{profile.name}.floor") if profile is not None else None
    with profiled(pid, spied, min(PROFILE_LIMIT_S, options.seconds)):
        load = wrk(url, headers, body_file, options.seconds, options.connections)
    busy = _busy_since(machine_before)
    time.sleep(FLOOR_SETTLE_S)
    return FloorRound(load, cpu_seconds(pid) - cpu_before, busy)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--seconds", type=int, default=30)
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--delay", type=float, default=0.3, help="provider delay per call, s")
    parser.add_argument(
        "--said",
        help="what the fake transcriber hears (default: an instruction the rules leave to the "
        "model; 'open telegram' is one the rules plan)",
    )
    parser.add_argument("--rounds", type=int, default=2, help="measured rounds (at least 1)")
    parser.add_argument("--profile", type=Path, help="py-spy raw output during round 1")
    parser.add_argument("--server-log", type=Path, help="append the server's log here")
    parser.add_argument("--workers", type=int, default=1, help="lisan serve --workers N")
    parser.add_argument(
        "--no-floor", action="store_true", help="without the raw floor's alternating rounds"
    )
    parser.add_argument(
        "--core", default="0", help="the core both servers are pinned to ('none': unpinned)"
    )
    parser.add_argument(
        "--beside",
        action="append",
        type=Build.parse,
        default=[],
        help="NAME=SRC: another build of the service in the same rounds (repeatable)",
    )
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk is not installed (Debian: apt-get install wrk)")
    if min(args.rounds, args.seconds, args.connections, args.workers) < 1:
        parser.error("--rounds, --seconds, --connections and --workers must be at least 1")
    options = Options(
        args.seconds,
        args.connections,
        args.delay,
        args.rounds,
        args.profile,
        args.server_log,
        args.workers,
        floor=not args.no_floor,
        core=None if args.core == "none" else args.core,
        beside=args.beside,
        said=args.said,
    )
    load_cores = pin_load_away_from(options.core)
    kinds = ["sqlite", "postgres"] if args.database == "both" else [args.database]
    print(
        f"wrk -t{min(2, options.connections)} -c{options.connections} -d{options.seconds}s "
        f"--timeout 10s, {WARM_UP_S} s warm-up then {options.rounds} rounds; 5 s command; "
        f"provider delay {options.delay_s} s per call, 2 calls per command; "
        f"lisan serve --workers {options.workers}"
        + (f", pinned to core {options.core}" if options.core else "")
        + (f"; wrk, the fake provider and this bench on cores {load_cores}" if load_cores else "")
        + ("; the raw floor in alternating rounds" if options.floor else "")
        + f"; load average {os.getloadavg()[0]:.2f}"
    )
    results = {kind: run(kind, options) for kind in kinds}
    for kind, result in results.items():
        print_table(kind, result.lisan, options.delay_s)
    print()
    for kind, result in results.items():
        print_ratio(kind, result)


if __name__ == "__main__":
    main()
