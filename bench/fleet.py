"""A phone fleet's day, compressed: a mixed load on PostgreSQL-backed Lisan with Redis,
measured from the phones' side and from the service's own /metrics.

    .venv/bin/python -m bench.fleet [--seconds 60] [--phones 50] [--seed 21] [--offline]
        [--json FILE]

What runs, all on this machine: a fresh PostgreSQL database (`lisan_bench_fleet`), Redis db 13
(flushed at start), the fake OpenAI-compatible provider (lisan/testing/openai_server.py, every call
answered after 0.3 s) and `lisan serve --workers 2` with LISAN_PROVIDER=openai against it, the
Prometheus listener on a free LISAN_METRICS_PORT and every rate limit at 100000/minute (the
limiters still run on every request; they never say no). The server's log (default INFO, JSON)
goes to a temporary file; its WARNING and ERROR lines are summarised at the end. With
--offline, a second `lisan serve` (one process, LISAN_PROVIDER=local: pocketsphinx on this
machine, its own metrics port, no deletion worker) on the same database and Redis takes a small
share of the commands.

The load: --phones simulated phones (50) in this process (asyncio + httpx, one client and so one
keep-alive connection per phone and server). Each phone registers and grants Telegram first
(POST /v1/app-grants), then loops: a pause of 0.2 to 1 s (uniform), then one action drawn with
fixed weights from its own generator (seeded by --seed and the phone's number):
- command (40): POST /v1/commands, a fresh X-Idempotency-Key, "open telegram" spoken by
  espeak-ng padded to 3, 4 or 5 s, on a launcher screen; when it is answered 200, at once
  POST /v1/telemetry/events naming the command's id, with the phone's outcome and timings;
- entitlement (15): GET /v1/billing/entitlement;
- phrases (15): GET /v1/phrases?language=en-US or am-ET, without credentials;
- vocabulary edit (12): POST /v1/vocabulary (a contact name) or DELETE /v1/vocabulary/{termId}
  (one of its terms; always when it holds 20);
- token refresh (8): POST /v1/auth/refresh; the new token replaces the old;
- reinstall (2): POST /v1/auth/register-device with a new install id, then the Telegram grant;
- with --offline, offline command (3): the command and its telemetry on the offline server.
Every request is valid, so any non-2xx is the service's answer to a good request.

The run: setup (devices, one checked command per server), a 5 s warm-up with the same mix,
then the measured window of --seconds. A phone starts no action after a phase's end; the phase
ends when every action started in it has its answer (the tool's requests of the window are
exactly those sent inside it); 1 s later /metrics is scraped. The same scrape opens the window.

Reported, for the window:
- per route (and server): requests, throughput (requests over the window, from its start to
  its last answer), p50/p99 latency in ms of the answered ones, and the errors: non-2xx by
  status and transport errors by kind;
- per server: its CPU (user + system from /proc over `lisan serve` and its children: the
  uvicorn workers, the metrics listener, the offline decoders) from the window's start to the
  closing scrape, per command answered 200 (the whole mix's cost, carried by its commands) and
  per request; beside it the fake provider's, PostgreSQL's and this load tool's CPU, and the
  share of the machine's cores busy;
- the metrics' own view: the deltas of `lisan_http_requests_total` (route template, method,
  status) and `lisan_commands_total` (status, summed over reasons) between the two scrapes,
  beside what the load tool counted, and whether they agree exactly; and the deltas of the
  counters that tell of trouble without a non-2xx (Redis fallbacks, pool waits, database
  faults, lost telemetry, refused decodes).
--json FILE writes the same figures. Needs PostgreSQL at 127.0.0.1:5432, Redis at
127.0.0.1:6379, espeak-ng and sox.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx
import redis

from bench.kit.cpu import cpu_seconds, machine_cpu, postgres_cpu_seconds
from bench.kit.servers import free_port, fresh_postgres_database, process
from bench.speed.fleet_metrics import compare, scrape
from bench.speed.fleet_phones import (
    OFFLINE,
    OFFLINE_WEIGHT,
    OPENAI,
    PAUSE_S,
    WARM_UP_S,
    WEIGHTS,
    Phone,
    Recorder,
    command_bodies,
)
from bench.speed.fleet_report import Options, Window, print_report, report
from bench.speed.fleet_servers import (
    DATABASE,
    PROVIDER_DELAY_S,
    REDIS_URL,
    WORKERS,
    Server,
    log_summary,
    serve,
    server_env,
)

SETTLE_S = 1.0  # after the last answer of a phase: the server counts a request after answering
REQUEST_TIMEOUT_S = 60.0


async def phase(phones: list[Phone], seconds: float) -> tuple[Recorder, float]:
    """The phones' actions until `seconds` from now, and the time from now to the phase's
    last answer."""
    recorder, started = Recorder(), time.monotonic()
    await asyncio.gather(*(phone.run(recorder, started + seconds) for phone in phones))
    return recorder, recorder.last_answer - started


async def drive(
    options: Options, servers: dict[str, Server], provider_pid: int
) -> tuple[Window, Counter[str]]:
    bodies = command_bodies()
    async with contextlib.AsyncExitStack() as stack:
        phones = []
        for number in range(options.phones):
            clients = {
                name: await stack.enter_async_context(
                    httpx.AsyncClient(base_url=server.base, timeout=REQUEST_TIMEOUT_S)
                )
                for name, server in servers.items()
            }
            phones.append(Phone(number, options.seed, clients, bodies))
        setup = Recorder()
        for phone in phones:
            if not await phone.register(setup):
                raise SystemExit(f"phone {phone.number} could not register: {setup.routes}")
        checked: Counter[str] = Counter()
        for name in servers:  # the offline server's first decode also starts its decoders
            checked[f"{name}: {await phones[0].command(setup, name)}"] += 1
        if checked[f"{OPENAI}: ACCEPTED"] != 1:
            raise SystemExit(f"the bench's command was not accepted: {dict(checked)}")
        print(f"setup: {options.phones} phones registered; checked commands {dict(checked)}")
        await phase(phones, WARM_UP_S)
        await asyncio.sleep(SETTLE_S)
        before = {name: await scrape(server.metrics_port) for name, server in servers.items()}
        cpu_before = {name: cpu_seconds(server.pid) for name, server in servers.items()}
        provider_before, postgres_before = cpu_seconds(provider_pid), postgres_cpu_seconds()
        tool_before, machine_before = time.process_time(), machine_cpu()
        recorder, seconds = await phase(phones, options.seconds)
        await asyncio.sleep(SETTLE_S)
        after = {name: await scrape(server.metrics_port) for name, server in servers.items()}
        cpu_s = {
            name: cpu_seconds(server.pid) - cpu_before[name] for name, server in servers.items()
        }
        provider_cpu_s = cpu_seconds(provider_pid) - provider_before
        postgres_cpu_s = postgres_cpu_seconds() - postgres_before
        machine_after, tool_cpu_s = machine_cpu(), time.process_time() - tool_before
    busy = (machine_after[0] - machine_before[0]) / (machine_after[1] - machine_before[1])
    agreements = {name: compare(name, recorder, before[name], after[name]) for name in servers}
    window = Window(
        recorder,
        seconds,
        cpu_s,
        provider_cpu_s,
        postgres_cpu_s,
        tool_cpu_s,
        busy,
        agreements,
    )
    return window, checked


def run(options: Options) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="lisan-bench-fleet-"))
    try:
        fresh_postgres_database(DATABASE)
        redis.Redis.from_url(REDIS_URL).flushdb()
        provider_port = free_port()
        provider_cmd = [sys.executable, "-m", "lisan.testing.openai_server"]
        provider_cmd += ["--port", str(provider_port), "--delay", str(PROVIDER_DELAY_S)]
        env = server_env(provider_port, workdir)
        with contextlib.ExitStack() as stack:
            provider_pid = stack.enter_context(
                process(provider_cmd, env, f"http://127.0.0.1:{provider_port}/")
            )
            servers = {OPENAI: stack.enter_context(serve(OPENAI, env, WORKERS, workdir, {}))}
            if options.offline:
                local = {"LISAN_PROVIDER": "local", "LISAN_RUN_WORKER": "false"}
                servers[OFFLINE] = stack.enter_context(serve(OFFLINE, env, 1, workdir, local))
            window, _ = asyncio.run(drive(options, servers, provider_pid))
        logs = {name: log_summary(server.log) for name, server in servers.items()}
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return report(options, window, logs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="measured window, s")
    parser.add_argument("--phones", type=int, default=50)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--offline", action="store_true", help="a share on LISAN_PROVIDER=local")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args()
    if args.seconds <= 0 or args.phones < 1:
        parser.error("--seconds must be above 0 and --phones at least 1")
    options = Options(args.seconds, args.phones, args.seed, args.offline)
    weights = WEIGHTS | ({"offline command": OFFLINE_WEIGHT} if options.offline else {})
    print(
        f"{options.phones} phones, seed {options.seed}, {WARM_UP_S:.0f} s warm-up then "
        f"{options.seconds:g} s measured; a pause of {PAUSE_S[0]}-{PAUSE_S[1]} s before each "
        f"action; weights {weights}; lisan serve --workers {WORKERS} (PostgreSQL, Redis db 13), "
        f"fake provider {PROVIDER_DELAY_S} s a call"
        + (
            "; offline server: lisan serve --workers 1, LISAN_PROVIDER=local"
            if args.offline
            else ""
        ),
        flush=True,
    )
    figures = run(options)
    print_report(figures)
    if args.json is not None:
        args.json.write_text(json.dumps(figures, indent=2) + "\n")


if __name__ == "__main__":
    main()
