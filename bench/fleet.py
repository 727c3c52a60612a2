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
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import redis
from prometheus_client.parser import text_string_to_metric_families

from bench.kit.cpu import cpu_seconds, machine_cpu, postgres_cpu_seconds
from bench.kit.figures import percentile
from bench.kit.servers import free_port, fresh_postgres_database, process, wait_for
from bench.speed.service import LAUNCHER, TELEGRAM, VIEW_TREE
from lisan.testing.speech import b64, padded, spoken

DATABASE = "lisan_bench_fleet"
DATABASE_URL = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{DATABASE}"
REDIS_URL = "redis://127.0.0.1:6379/13"
HIGH_LIMIT = "100000/minute"
PROVIDER_DELAY_S = 0.3
WORKERS = 2
WARM_UP_S = 5.0
SETTLE_S = 1.0  # after the last answer of a phase: the server counts a request after answering
PAUSE_S = (0.2, 1.0)  # a phone's pause before each action
REQUEST_TIMEOUT_S = 60.0
COMMAND_SECONDS = (3.0, 4.0, 5.0)
MAX_TERMS = 20

OPENAI, OFFLINE = "openai", "offline"  # the servers, by provider

# (method, route template): what the service's metrics name a request by.
Route = tuple[str, str]
REGISTER: Route = ("POST", "/v1/auth/register-device")
REFRESH: Route = ("POST", "/v1/auth/refresh")
GRANT: Route = ("POST", "/v1/app-grants")
COMMAND: Route = ("POST", "/v1/commands")
TELEMETRY: Route = ("POST", "/v1/telemetry/events")
TERM_ADD: Route = ("POST", "/v1/vocabulary")
TERM_DELETE: Route = ("DELETE", "/v1/vocabulary/{termId}")
ENTITLEMENT: Route = ("GET", "/v1/billing/entitlement")
PHRASES: Route = ("GET", "/v1/phrases")
ROUTE_ORDER = [COMMAND, TELEMETRY, ENTITLEMENT, PHRASES, TERM_ADD, TERM_DELETE, REFRESH]
ROUTE_ORDER += [REGISTER, GRANT]

WEIGHTS = {
    "command": 40,
    "entitlement": 15,
    "phrases": 15,
    "vocabulary": 12,
    "refresh": 8,
    "reinstall": 2,
}
OFFLINE_WEIGHT = 3  # "offline command", with --offline

GIVEN_NAMES = ["Abebe", "Kebede", "Almaz", "Tigist", "Dawit", "Hana", "Selam", "Yonas"]
FAMILY_NAMES = ["Tesfaye", "Girma", "Bekele", "Haile", "Mekonnen", "Alemu", "Tadesse", "Wolde"]
# What the phone reports after each answered command.
OUTCOMES = {
    "ACCEPTED": "done",
    "CONFIRMATION_REQUIRED": "done",
    "REPROMPT": "cancelled",
    "REJECTED": "rejected",
}
NO_ANSWER = "no answer"  # a command that got a transport error instead of an HTTP answer
# Counters that say something went wrong inside the service without a non-2xx (their deltas are
# printed too): Redis not answering in time, pool waits, lost telemetry, refused decodes.
TROUBLE = (
    "lisan_redis_fallbacks_total",
    "lisan_db_pool_waits_total",
    "lisan_db_faults_total",
    "lisan_telemetry_events_lost_total",
    "lisan_decoder_refusals_total",
)


# --- what the load tool counts ---------------------------------------------------------------


@dataclass
class Tally:
    """One route on one server: the answered requests' latencies and statuses, and the
    requests that got no HTTP answer (by exception)."""

    latencies_ms: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    transport: Counter[str] = field(default_factory=Counter)

    @property
    def requests(self) -> int:
        return len(self.latencies_ms) + sum(self.transport.values())


@dataclass
class Recorder:
    routes: dict[tuple[str, Route], Tally] = field(default_factory=dict)
    commands: dict[str, Counter[str]] = field(default_factory=dict)  # server -> status
    last_answer: float = 0.0  # time.monotonic() of the phase's last answer (or error)

    def tally(self, server: str, route: Route) -> Tally:
        return self.routes.setdefault((server, route), Tally())

    def command(self, server: str, status: str) -> None:
        self.commands.setdefault(server, Counter())[status] += 1


# --- the phones ------------------------------------------------------------------------------


def command_bodies() -> list[tuple[float, bytes]]:
    """(seconds, JSON body) of "open telegram" padded to each of COMMAND_SECONDS."""
    speech = spoken("open telegram", "en-US")
    bodies = []
    for seconds in COMMAND_SECONDS:
        body = {
            "audio_base64": b64(padded(speech, seconds)),
            "duration_ms": int(seconds * 1000),
            "language": "en-US",
            "screen_context": {"current_package": LAUNCHER, "view_tree_summary": VIEW_TREE},
        }
        bodies.append((seconds, json.dumps(body).encode()))
    return bodies


class Phone:
    def __init__(
        self,
        number: int,
        seed: int,
        clients: dict[str, httpx.AsyncClient],
        bodies: list[tuple[float, bytes]],
    ) -> None:
        self.number = number
        self.rng = random.Random(f"{seed}:{number}")
        self.clients = clients
        self.bodies = bodies
        self.install_id = ""
        self.token = ""
        self.terms: dict[str, str] = {}  # term id -> term
        weights = dict(WEIGHTS)
        if OFFLINE in clients:
            weights["offline command"] = OFFLINE_WEIGHT
        self.actions, self.weights = list(weights), list(weights.values())

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "X-Install-ID": self.install_id}

    async def request(
        self,
        recorder: Recorder,
        server: str,
        route: Route,
        path: str | None = None,
        **kwargs: Any,
    ) -> httpx.Response | None:
        """Send one request and count it under `route` (its template; `path` when the URL
        differs from it). None when no HTTP answer came."""
        method, template = route
        tally = recorder.tally(server, route)
        started = time.perf_counter()
        try:
            answer = await self.clients[server].request(method, path or template, **kwargs)
        except httpx.HTTPError as exc:
            tally.transport[type(exc).__name__] += 1
            recorder.last_answer = time.monotonic()
            return None
        recorder.last_answer = time.monotonic()
        tally.latencies_ms.append((time.perf_counter() - started) * 1000)
        tally.statuses[answer.status_code] += 1
        return answer

    async def run(self, recorder: Recorder, until: float) -> None:
        while True:
            await asyncio.sleep(self.rng.uniform(*PAUSE_S))
            if time.monotonic() >= until:
                return
            action = self.rng.choices(self.actions, self.weights)[0]
            await self.act(action, recorder)

    async def act(self, action: str, recorder: Recorder) -> None:
        if action == "command":
            await self.command(recorder, OPENAI)
        elif action == "offline command":
            await self.command(recorder, OFFLINE)
        elif action == "entitlement":
            await self.request(recorder, OPENAI, ENTITLEMENT, headers=self.headers)
        elif action == "phrases":
            language = self.rng.choice(["en-US", "am-ET"])
            await self.request(recorder, OPENAI, PHRASES, params={"language": language})
        elif action == "vocabulary":
            await self.edit_vocabulary(recorder)
        elif action == "refresh":
            await self.refresh(recorder)
        elif action == "reinstall":
            await self.register(recorder)
        else:
            raise AssertionError(action)

    async def register(self, recorder: Recorder) -> bool:
        """A new install: register it, then grant Telegram. Whether both succeeded."""
        install_id = f"fleet-{self.number:03d}-{self.rng.getrandbits(64):016x}"
        device = {"install_id": install_id, "model": "Pixel 7a", "locale": "en-US"}
        answer = await self.request(recorder, OPENAI, REGISTER, json=device)
        if answer is None or answer.status_code != 200:
            return False
        self.install_id, self.token = install_id, answer.json()["session_token"]
        self.terms = {}
        grant = {"package_name": TELEGRAM, "granted": True}
        granted = await self.request(recorder, OPENAI, GRANT, json=grant, headers=self.headers)
        return granted is not None and granted.status_code == 200

    async def refresh(self, recorder: Recorder) -> None:
        answer = await self.request(recorder, OPENAI, REFRESH, headers=self.headers)
        if answer is not None and answer.status_code == 200:
            self.token = answer.json()["session_token"]

    async def edit_vocabulary(self, recorder: Recorder) -> None:
        if self.terms and (len(self.terms) >= MAX_TERMS or self.rng.random() < 0.4):
            term_id = self.rng.choice(sorted(self.terms))
            del self.terms[term_id]
            path = f"/v1/vocabulary/{term_id}"
            await self.request(recorder, OPENAI, TERM_DELETE, path, headers=self.headers)
            return
        held = {term.casefold() for term in self.terms.values()}
        names = [f"{given} {family}" for given in GIVEN_NAMES for family in FAMILY_NAMES]
        term = self.rng.choice([name for name in names if name.casefold() not in held])
        body = {"term": term, "kind": self.rng.choice(["contact", "contact", "custom"])}
        answer = await self.request(recorder, OPENAI, TERM_ADD, json=body, headers=self.headers)
        if answer is not None and answer.status_code == 201:
            self.terms[answer.json()["term_id"]] = term

    async def command(self, recorder: Recorder, server: str) -> str:
        """One spoken command, then (answered) the phone's telemetry event; its status."""
        seconds, body = self.rng.choice(self.bodies)
        key = uuid.UUID(int=self.rng.getrandbits(128), version=4)
        headers = {
            **self.headers,
            "X-Idempotency-Key": str(key),
            "Content-Type": "application/json",
        }
        started = time.perf_counter()
        answer = await self.request(recorder, server, COMMAND, content=body, headers=headers)
        waited_ms = int((time.perf_counter() - started) * 1000)
        if answer is None:
            recorder.command(server, NO_ANSWER)
            return NO_ANSWER
        if answer.status_code != 200:
            recorder.command(server, "ERROR")
            return "ERROR"
        answered = answer.json()
        status = str(answered["status"])
        recorder.command(server, status)
        executed_ms = self.rng.randint(150, 900)
        event = {
            "request_id": answered["command_id"],
            "outcome": OUTCOMES.get(status, "failed"),
            "duration_ms": waited_ms + executed_ms,
            "confidence": round(self.rng.uniform(0.6, 0.99), 2),
            "stage_timings": {
                "record": int(seconds * 1000),
                "server": waited_ms,
                "execute": executed_ms,
            },
        }
        await self.request(recorder, server, TELEMETRY, json=event, headers=self.headers)
        return status


# --- the service's own view ------------------------------------------------------------------


@dataclass
class Scrape:
    http: Counter[tuple[str, str, str]]  # (route, method, status) -> requests
    commands: Counter[str]  # command status -> commands (summed over reasons)
    reasons: Counter[tuple[str, str]]  # (status, reason) -> commands
    trouble: Counter[str]  # a TROUBLE counter, with its labels -> value


async def scrape(metrics_port: int) -> Scrape:
    async with httpx.AsyncClient(timeout=10) as client:
        text = (await client.get(f"http://127.0.0.1:{metrics_port}/metrics")).text
    http: Counter[tuple[str, str, str]] = Counter()
    reasons: Counter[tuple[str, str]] = Counter()
    trouble: Counter[str] = Counter()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels, value = sample.labels, round(sample.value)
            if sample.name == "lisan_http_requests_total":
                http[(labels["route"], labels["method"], labels["status"])] += value
            elif sample.name == "lisan_commands_total":
                reasons[(labels["status"], labels["reason"])] += value
            elif sample.name in TROUBLE:
                named = ",".join(f"{k}={v}" for k, v in sorted(labels.items()))
                trouble[f"{sample.name}{{{named}}}" if named else sample.name] += value
    commands: Counter[str] = Counter()
    for (status, _), value in reasons.items():
        commands[status] += value
    return Scrape(http, commands, reasons, trouble)


def delta(after: Counter[Any], before: Counter[Any]) -> Counter[Any]:
    return Counter({key: after[key] - before[key] for key in after if after[key] != before[key]})


@dataclass
class Agreement:
    """One server: the load tool's counts and the metrics' deltas, row by row."""

    http: list[tuple[str, str, str, int, int]]  # route, method, status, tool, metrics
    commands: list[tuple[str, int, int]]  # status, tool, metrics
    reasons: dict[str, int]  # "STATUS/reason" -> metrics delta
    trouble: dict[str, int]  # a TROUBLE counter (with labels) -> its delta, when not 0

    @property
    def agrees(self) -> bool:
        rows = [(tool, seen) for *_, tool, seen in self.http]
        rows += [(tool, seen) for _, tool, seen in self.commands]
        return all(tool == seen for tool, seen in rows)


def compare(server: str, recorder: Recorder, before: Scrape, after: Scrape) -> Agreement:
    tool: Counter[tuple[str, str, str]] = Counter()
    for (name, (method, template)), tally in recorder.routes.items():
        if name == server:
            for status, count in tally.statuses.items():
                tool[(template, method, str(status))] += count
            for kind, count in tally.transport.items():
                tool[(template, method, f"({kind})")] += count
    seen = delta(after.http, before.http)
    order = {(template, method): n for n, (method, template) in enumerate(ROUTE_ORDER)}
    keys = sorted(tool.keys() | seen.keys(), key=lambda k: (order.get(k[:2], 99), k))
    http = [(*key, tool[key], seen[key]) for key in keys]
    counted = recorder.commands.get(server, Counter())
    commands_seen = delta(after.commands, before.commands)
    statuses = sorted(counted.keys() | commands_seen.keys())
    commands = [(status, counted[status], commands_seen[status]) for status in statuses]
    reasons = {
        f"{status}/{reason}": count
        for (status, reason), count in sorted(delta(after.reasons, before.reasons).items())
    }
    trouble = dict(sorted(delta(after.trouble, before.trouble).items()))
    return Agreement(http, commands, reasons, trouble)


# --- the servers -----------------------------------------------------------------------------


@dataclass
class Server:
    name: str
    base: str
    metrics_port: int
    pid: int
    log: Path


def server_env(provider_port: int, workdir: Path) -> dict[str, str]:
    inherited = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("LISAN_") and k != "PROMETHEUS_MULTIPROC_DIR"
    }
    return {
        **inherited,
        "LISAN_DATABASE_URL": DATABASE_URL,
        "LISAN_REDIS_URL": REDIS_URL,
        "LISAN_PROVIDER": "openai",
        "LISAN_OPENAI_BASE_URL": f"http://127.0.0.1:{provider_port}",
        "LISAN_OPENAI_API_KEY": "bench",
        "LISAN_RATE_LIMIT_COMMANDS": HIGH_LIMIT,
        "LISAN_RATE_LIMIT_USER": HIGH_LIMIT,
        "LISAN_RATE_LIMIT_IP": HIGH_LIMIT,
        "LISAN_RATE_LIMIT_REGISTER": HIGH_LIMIT,
        "LISAN_RATE_LIMIT_JOB_LOOKUP": HIGH_LIMIT,
        "LISAN_STORAGE_DIR": str(workdir / "objects"),
    }


@contextlib.contextmanager
def serve(
    name: str, env: dict[str, str], workers: int, workdir: Path, extra: dict[str, str]
) -> Iterator[Server]:
    port, metrics_port = free_port(), free_port()
    env = {
        **env,
        **extra,
        "LISAN_METRICS_PORT": str(metrics_port),
        "LISAN_METRICS_DIR": str(workdir / f"metrics-{name}"),
    }
    command = [sys.executable, "-m", "lisan", "serve", "--port", str(port)]
    command += ["--workers", str(workers)]
    base, log = f"http://127.0.0.1:{port}", workdir / f"{name}.log"
    with process(command, env, f"{base}/health", log) as pid:
        wait_for(f"http://127.0.0.1:{metrics_port}/metrics")
        yield Server(name, base, metrics_port, pid, log)


def log_summary(log: Path, limit: int = 6) -> list[str]:
    """The server log's WARNING and worse lines, counted by level, logger and message."""
    counted: Counter[str] = Counter()
    with contextlib.suppress(OSError), log.open() as lines:
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                counted[f"(not JSON) {line.strip()[:200]}"] += 1
                continue
            if isinstance(entry, dict) and entry.get("level") in ("WARNING", "ERROR", "CRITICAL"):
                counted[f"{entry['level']} {entry.get('logger')}: {entry.get('msg')}"] += 1
    return [f"{count} x {text}" for text, count in counted.most_common(limit)]


# --- the run ---------------------------------------------------------------------------------


@dataclass
class Options:
    seconds: float
    phones: int
    seed: int
    offline: bool


@dataclass
class Window:
    recorder: Recorder
    seconds: float  # from the window's start to its last answer
    cpu_s: dict[str, float]  # per server
    provider_cpu_s: float
    postgres_cpu_s: float
    load_tool_cpu_s: float
    machine_busy: float
    agreements: dict[str, Agreement]


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


# --- the report ------------------------------------------------------------------------------


def route_rows(window: Window) -> list[dict[str, Any]]:
    order = {route: n for n, route in enumerate(ROUTE_ORDER)}
    rows = []
    for server, route in sorted(window.recorder.routes, key=lambda k: (k[0], order[k[1]])):
        tally = window.recorder.routes[(server, route)]
        latencies = tally.latencies_ms
        rows.append(
            {
                "server": server,
                "method": route[0],
                "route": route[1],
                "requests": tally.requests,
                "requests_per_s": tally.requests / window.seconds,
                "p50_ms": statistics.median(latencies) if latencies else None,
                "p99_ms": percentile(latencies, 99) if latencies else None,
                "non_2xx": {
                    str(status): count
                    for status, count in sorted(tally.statuses.items())
                    if not 200 <= status < 300
                },
                "transport_errors": dict(tally.transport),
            }
        )
    return rows


def report(options: Options, window: Window, logs: dict[str, list[str]]) -> dict[str, Any]:
    recorder = window.recorder
    servers = []
    for name, cpu_s in window.cpu_s.items():
        answered = sum(
            count
            for status, count in recorder.commands.get(name, Counter()).items()
            if status not in ("ERROR", NO_ANSWER)
        )
        requests = sum(t.requests for (server, _), t in recorder.routes.items() if server == name)
        servers.append(
            {
                "server": name,
                "processes": f"lisan serve --workers {WORKERS if name == OPENAI else 1}",
                "commands_answered": answered,
                "requests": requests,
                "cpu_s": cpu_s,
                "cpu_ms_per_command": cpu_s * 1000 / answered if answered else None,
                "cpu_ms_per_request": cpu_s * 1000 / requests if requests else None,
            }
        )
    agreements = {
        name: {
            "agree": agreement.agrees,
            "http": [
                {"route": r, "method": m, "status": s, "load_tool": t, "metrics": v}
                for r, m, s, t, v in agreement.http
            ],
            "commands": [
                {"status": s, "load_tool": t, "metrics": v} for s, t, v in agreement.commands
            ],
            "command_reasons": agreement.reasons,
            "trouble_counters": agreement.trouble,
        }
        for name, agreement in window.agreements.items()
    }
    return {
        "options": {
            "seconds": options.seconds,
            "phones": options.phones,
            "seed": options.seed,
            "offline": options.offline,
            "warm_up_s": WARM_UP_S,
            "pause_s": list(PAUSE_S),
            "provider_delay_s": PROVIDER_DELAY_S,
            "weights": WEIGHTS | ({"offline command": OFFLINE_WEIGHT} if options.offline else {}),
        },
        "cores": os.cpu_count(),
        "window_s": window.seconds,
        "routes": route_rows(window),
        "servers": servers,
        "provider_cpu_s": window.provider_cpu_s,
        "postgres_cpu_s": window.postgres_cpu_s,
        "load_tool_cpu_s": window.load_tool_cpu_s,
        "machine_busy": window.machine_busy,
        "metrics": agreements,
        "metrics_agree": all(a.agrees for a in window.agreements.values()),
        "server_log_warnings": logs,
    }


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.0f}" if value >= 10 else f"{value:.1f}"


def print_report(figures: dict[str, Any]) -> None:
    print(f"\nmeasured window: {figures['window_s']:.1f} s")
    print("\n| server | route | requests | req/s | p50 ms | p99 ms | errors |")
    print("|---|---|---:|---:|---:|---:|---|")
    for row in figures["routes"]:
        errors = [f"{status} x{count}" for status, count in row["non_2xx"].items()]
        errors += [f"{kind} x{count}" for kind, count in row["transport_errors"].items()]
        print(
            f"| {row['server']} | {row['method']} {row['route']} | {row['requests']} "
            f"| {row['requests_per_s']:.1f} | {_ms(row['p50_ms'])} | {_ms(row['p99_ms'])} "
            f"| {', '.join(errors) or 'none'} |"
        )
    window_s = figures["window_s"]
    print("\n| server | commands answered | requests | CPU s | CPU ms per command | per request |")
    print("|---|---:|---:|---:|---:|---:|")
    for row in figures["servers"]:
        print(
            f"| {row['server']} ({row['processes']}) | {row['commands_answered']} "
            f"| {row['requests']} | {row['cpu_s']:.1f} | {_ms(row['cpu_ms_per_command'])} "
            f"| {_ms(row['cpu_ms_per_request'])} |"
        )
    print(
        f"\nalso over the window: fake provider CPU {figures['provider_cpu_s']:.1f} s, "
        f"PostgreSQL {figures['postgres_cpu_s']:.1f} s, this load tool "
        f"{figures['load_tool_cpu_s']:.1f} s ({figures['load_tool_cpu_s'] / window_s:.0%} of a "
        f"core); the machine's {figures['cores']} cores {figures['machine_busy']:.0%} busy"
    )
    for name, agreement in figures["metrics"].items():
        print(f"\n/metrics of the {name} server, deltas over the window, beside the load tool:")
        print("\n| route | method | status | load tool | /metrics | agree |")
        print("|---|---|---|---:|---:|---|")
        for row in agreement["http"]:
            same = "yes" if row["load_tool"] == row["metrics"] else "NO"
            print(
                f"| {row['route']} | {row['method']} | {row['status']} | {row['load_tool']} "
                f"| {row['metrics']} | {same} |"
            )
        print("\n| lisan_commands_total status | load tool | /metrics | agree |")
        print("|---|---:|---:|---|")
        for row in agreement["commands"]:
            same = "yes" if row["load_tool"] == row["metrics"] else "NO"
            print(f"| {row['status']} | {row['load_tool']} | {row['metrics']} | {same} |")
        reasons = ", ".join(f"{k} {v}" for k, v in agreement["command_reasons"].items())
        print(f"commands by status/reason (/metrics): {reasons or 'none'}")
        trouble = ", ".join(f"{k} {v}" for k, v in agreement["trouble_counters"].items())
        print(f"trouble counters' deltas (/metrics): {trouble or 'all 0'}")
        print(f"{name}: /metrics agree with the load tool: {'yes' if agreement['agree'] else 'NO'}")
    for name, lines in figures["server_log_warnings"].items():
        print(f"\n{name} server log, WARNING and worse (whole run): {'; '.join(lines) or 'none'}")


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
