"""Servers of the fault tests' own, so stopping, freezing (SIGSTOP) and restarting them touches
nothing else: a PostgreSQL cluster (initdb into a temporary directory; its own port and socket
directory) and a redis-server, each in a process group of its own; `lisan serve` as a real
subprocess against them; and a load of concurrent clients that records every answer.

Outside CI a missing binary skips the test that needs it; with CI=true it fails it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import asyncpg
import httpx
import pytest

from tests.deletion.support import reap, stop
from tests.factories import Device, new_install_id
from tests.network import closed_port

IN_CI = os.environ.get("CI", "").lower() == "true"
START_TIMEOUT_S = 60.0  # a loaded 2-core machine starts slowly; a real failure ends it sooner
STOP_TIMEOUT_S = 30.0
SUPERUSER = "postgres"


def unavailable(reason: str) -> NoReturn:
    """A binary or account these tests need is missing: a skip, or a failure under CI=true."""
    if IN_CI:
        pytest.fail(f"CI=true: {reason}", pytrace=False)
    pytest.skip(reason)


def _version_key(bindir: Path) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in bindir.parent.name.split("."))
    except ValueError:
        return (-1,)


def postgres_bindir() -> Path | None:
    """The newest of /usr/lib/postgresql/*/bin (Debian's layout), else initdb on the PATH."""
    found = [
        bindir
        for bindir in Path("/usr/lib/postgresql").glob("*/bin")
        if (bindir / "initdb").is_file() and (bindir / "postgres").is_file()
    ]
    if found:
        return max(found, key=_version_key)
    initdb = shutil.which("initdb")
    if initdb and (Path(initdb).parent / "postgres").is_file():
        return Path(initdb).parent
    return None


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


class _ServerProcess:
    """A server started in a session of its own; freezing, thawing and killing it signal its
    own processes and nothing else."""

    name = "server"

    def __init__(self, root: Path) -> None:
        self.root = root
        self.port = closed_port()
        self.log_path = root / f"{self.name}.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.frozen = False

    def _spawn(self, command: list[str], **kwargs: Any) -> None:
        with self.log_path.open("ab") as log:  # the child keeps its own copy of the descriptor
            self.process = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                **kwargs,
            )

    def _wait_until(self, ready: Callable[[], bool], timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while not ready():
            if self.process is None or self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited at start:\n{_tail(self.log_path)}")
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"{self.name} not ready in {timeout_s} s:\n{_tail(self.log_path)}"
                )
            time.sleep(0.05)

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def _pids(self) -> list[int]:
        """Every process of the server, the first one first."""
        if self.process is None:
            raise RuntimeError(f"{self.name} is not running")
        return [self.process.pid]

    def _signal(self, sig: int, pids: list[int]) -> None:
        for pid in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)

    def freeze(self) -> None:
        """SIGSTOP every process of the server: connections stay open, nothing answers."""
        self._signal(signal.SIGSTOP, self._pids())  # the parent first: it forks no more
        self.frozen = True

    def thaw(self) -> None:
        self._signal(signal.SIGCONT, self._pids()[::-1])
        self.frozen = False

    def kill(self) -> None:
        """SIGKILL every process of the server (a crash)."""
        if self.process is None:
            return
        if self.process.poll() is None:  # once reaped, its pid may be another's: no signal
            self._signal(signal.SIGKILL, self._pids())
            self.process.wait()
        self.process = None
        self.frozen = False

    def _stop(self, sig: int) -> None:
        if self.running:
            assert self.process is not None
            if self.frozen:
                self.thaw()
            self.process.send_signal(sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=STOP_TIMEOUT_S)
        self.kill()


class PrivatePostgres(_ServerProcess):
    """A PostgreSQL cluster of its own on 127.0.0.1 and a free port, trust authentication for
    `postgres`, fsync off. As root it runs as the `postgres` account (initdb refuses root)."""

    name = "postgres"

    def __init__(self, root: Path, bindir: Path, run_as: pwd.struct_passwd | None) -> None:
        super().__init__(root)
        self.bindir = bindir
        self.data = root / "data"
        self.sockets = root / "sockets"
        self._run_as = run_as
        self._databases = 0

    @classmethod
    def create(cls, root: Path) -> PrivatePostgres:
        """initdb into `root` (an empty directory); not started yet."""
        bindir = postgres_bindir()
        if bindir is None:
            unavailable("no PostgreSQL server binaries (/usr/lib/postgresql/*/bin or initdb)")
        run_as = None
        if os.geteuid() == 0:
            try:
                run_as = pwd.getpwnam(SUPERUSER)
            except KeyError:
                unavailable("running as root and there is no `postgres` account to run initdb as")
        server = cls(root, bindir, run_as)
        server.sockets.mkdir()
        if run_as is not None:
            for path in (root, server.sockets):
                os.chown(path, run_as.pw_uid, run_as.pw_gid)
        initdb = [str(bindir / "initdb"), "-D", str(server.data), "-U", SUPERUSER]
        initdb += ["--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C"]
        done = subprocess.run(initdb, capture_output=True, text=True, **server._as_user())
        if done.returncode != 0:
            raise RuntimeError(f"initdb failed:\n{done.stdout}\n{done.stderr}")
        return server

    def _pids(self) -> list[int]:
        """The postmaster and its children: each backend is a session of its own (PostgreSQL
        calls setsid), so a signal to the postmaster's process group would miss them."""
        postmaster = super()._pids()[0]
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue  # gone meanwhile
            if parent == postmaster:
                children.append(int(stat.parent.name))
        return [postmaster, *children]

    def _as_user(self) -> dict[str, Any]:
        if self._run_as is None:
            return {}
        return {"user": self._run_as.pw_uid, "group": self._run_as.pw_gid, "extra_groups": []}

    def start(self) -> None:
        settings = {
            "listen_addresses": "127.0.0.1",
            "fsync": "off",
            "synchronous_commit": "off",
            "full_page_writes": "off",
        }
        command = [str(self.bindir / "postgres"), "-D", str(self.data), "-p", str(self.port)]
        command += ["-k", str(self.sockets)]
        for name, value in settings.items():
            command += ["-c", f"{name}={value}"]
        self._spawn(command, **self._as_user())
        self._wait_until(self._accepting, START_TIMEOUT_S)

    def _accepting(self) -> bool:
        probe = [str(self.bindir / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)]
        return subprocess.run(probe, check=False).returncode == 0

    def stop(self) -> None:
        """A fast shutdown (SIGINT): sessions are ended, as when an operator restarts it."""
        self._stop(signal.SIGINT)

    def dsn(self, database: str = SUPERUSER) -> str:
        return f"postgresql://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    def url(self, database: str) -> str:
        """The SQLAlchemy URL of one of its databases, for postgresql+asyncpg."""
        return f"postgresql+asyncpg://{SUPERUSER}@127.0.0.1:{self.port}/{database}"

    async def new_database(self) -> str:
        """A new, empty database; its name (each test takes its own)."""
        self._databases += 1
        name = f"lisan_{self._databases}"
        connection = await asyncpg.connect(self.dsn(), timeout=10)
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()
        return name


class PrivateRedis(_ServerProcess):
    """A redis-server of its own on 127.0.0.1 and a free port, persisting nothing."""

    name = "redis"

    def __init__(self, root: Path, binary: str) -> None:
        super().__init__(root)
        self.binary = binary

    @classmethod
    def create(cls, root: Path) -> PrivateRedis:
        binary = shutil.which("redis-server")
        if binary is None:
            unavailable("no redis-server on the PATH")
        return cls(root, binary)

    def start(self) -> None:
        command = [self.binary, "--port", str(self.port), "--bind", "127.0.0.1"]
        command += ["--save", "", "--appendonly", "no", "--dir", str(self.root)]
        command += ["--daemonize", "no", "--protected-mode", "no"]
        self._spawn(command)
        self._wait_until(self._answers, START_TIMEOUT_S)

    def _answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as connection:
                connection.sendall(b"PING\r\n")
                return connection.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self) -> None:
        self._stop(signal.SIGTERM)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"


# `lisan serve` as a subprocess.


@dataclass
class LisanServer:
    process: asyncio.subprocess.Process
    base_url: str
    log_path: Path

    def log_records(self) -> list[dict[str, Any]]:
        """The JSON log lines the server wrote (stderr), in order."""
        records = []
        for line in self.log_path.read_text(errors="replace").splitlines():
            with contextlib.suppress(ValueError):
                record = json.loads(line)
                if isinstance(record, dict):
                    records.append(record)
        return records

    def log_tail(self, lines: int = 40) -> str:
        return _tail(self.log_path, lines)


def serve_env(
    database_url: str, storage_dir: Path, redis_url: str | None = None, **settings: str
) -> dict[str, str]:
    """The environment of a `lisan serve` under test: the caller's, without any LISAN_ setting
    of theirs, and generous rate limits (the load would hit the production ones)."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("LISAN_")}
    env.update(
        LISAN_DATABASE_URL=database_url,
        LISAN_STORAGE_DIR=str(storage_dir),
        LISAN_RUN_WORKER="false",
        LISAN_LOG_FORMAT="json",
        LISAN_RATE_LIMIT_USER="100000/minute",
        LISAN_RATE_LIMIT_REGISTER="100000/minute",
        LISAN_RATE_LIMIT_COMMANDS="100000/minute",
        LISAN_RATE_LIMIT_IP="100000/minute",  # every client of the load is 127.0.0.1
    )
    if redis_url is not None:
        env["LISAN_REDIS_URL"] = redis_url
    env.update({f"LISAN_{name.upper()}": value for name, value in settings.items()})
    return env


@asynccontextmanager
async def lisan_serve(
    env: Mapping[str, str], log_path: Path, *, workers: int = 1
) -> AsyncIterator[LisanServer]:
    """`lisan serve [--workers N]` on a free port, once /health answers; stopped with SIGTERM
    (then killed, if it must be) when the block ends, unless the test stopped it already."""
    port = closed_port()
    lisan = Path(sys.executable).with_name("lisan")
    with log_path.open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            str(lisan),
            "serve",
            "--port",
            str(port),
            "--workers",
            str(workers),
            env=dict(env),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
    server = LisanServer(process, f"http://127.0.0.1:{port}", log_path)
    try:
        await _wait_for_health(server)
        yield server
    finally:
        try:
            if process.returncode is None:
                await stop(process, signal.SIGTERM)
        finally:
            await reap(process)


async def _wait_for_health(server: LisanServer) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    async with httpx.AsyncClient(base_url=server.base_url, timeout=2) as client:
        while True:
            if server.process.returncode is not None:
                raise RuntimeError(f"lisan serve exited at start:\n{server.log_tail()}")
            try:
                if (await client.get("/health")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"lisan serve not healthy in time:\n{server.log_tail()}")
            await asyncio.sleep(0.1)


# The load: concurrent clients, every answer recorded.

OK_STATUSES = frozenset({200, 201, 202, 204})
TRANSPORT_ERROR_PAUSE_S = 0.05


@dataclass
class Outcome:
    op: str
    started: float  # time.monotonic()
    ended: float = 0.0
    status: int | None = None
    error: str | None = None  # a transport error's class name (no answer)
    retry_after: str | None = None
    sent: float | None = None  # when the request was on the wire, body and all
    key: Any = None  # what a 2xx write leaves in the database

    @property
    def latency(self) -> float:
        """From the request on the wire to its answer: the server's time. A loaded machine
        can hold the client's own event loop for seconds before it sends (seen: 3 s), which is
        no time of the server's; a server that stops reading still shows, since the kernel
        takes the request into the socket's buffer either way."""
        return self.ended - (self.started if self.sent is None else self.sent)

    @property
    def ok(self) -> bool:
        return self.status in OK_STATUSES


Request = Callable[
    [httpx.AsyncClient, Device, Outcome, Mapping[str, Any]], Awaitable[httpx.Response]
]


async def _register(
    client: httpx.AsyncClient, _device: Device, outcome: Outcome, extensions: Mapping[str, Any]
) -> httpx.Response:
    outcome.key = new_install_id()
    body = {"install_id": outcome.key}
    return await client.post("/v1/auth/register-device", json=body, extensions=dict(extensions))


async def _consent(
    client: httpx.AsyncClient, device: Device, outcome: Outcome, extensions: Mapping[str, Any]
) -> httpx.Response:
    scope = f"fault.{uuid.uuid4().hex}"
    outcome.key = (device.user_id, scope)
    body = {"scope": scope, "granted": True}
    return await client.post(
        "/v1/consent/grants", json=body, headers=device.headers, extensions=dict(extensions)
    )


async def _vocabulary(
    client: httpx.AsyncClient, device: Device, outcome: Outcome, extensions: Mapping[str, Any]
) -> httpx.Response:
    term = f"t{uuid.uuid4().hex[:20]}"
    outcome.key = (device.user_id, term)
    body = {"term": term, "kind": "custom"}
    return await client.post(
        "/v1/vocabulary", json=body, headers=device.headers, extensions=dict(extensions)
    )


async def _me(
    client: httpx.AsyncClient, device: Device, _outcome: Outcome, extensions: Mapping[str, Any]
) -> httpx.Response:
    return await client.get("/v1/users/me", headers=device.headers, extensions=dict(extensions))


async def _telemetry(
    client: httpx.AsyncClient, device: Device, outcome: Outcome, extensions: Mapping[str, Any]
) -> httpx.Response:
    # A request id no command has: the event is stored under it, so it can be looked for.
    outcome.key = uuid.uuid4()
    body = {
        "request_id": str(outcome.key),
        "outcome": "done",
        "duration_ms": 420,
        "confidence": 0.9,
        "stage_timings": {"capture": 120, "upload": 300},
    }
    return await client.post(
        "/v1/telemetry/events", json=body, headers=device.headers, extensions=dict(extensions)
    )


async def _ready(
    client: httpx.AsyncClient, _device: Device, _outcome: Outcome, extensions: Mapping[str, Any]
) -> httpx.Response:
    return await client.get("/ready", extensions=dict(extensions))


OPERATIONS: dict[str, Request] = {
    "register": _register,
    "consent": _consent,
    "vocabulary": _vocabulary,
    "me": _me,
    "telemetry": _telemetry,
    "ready": _ready,
}
WRITES = ("register", "consent", "vocabulary", "telemetry")


@dataclass
class Load:
    """`clients` concurrent clients, each with its own connection and device, each sending its
    operations in turn until `stop()`. Every request is recorded, with its answer or error."""

    base_url: str
    devices: list[Device]
    operations: list[list[str]]  # the operations of each client, in turn
    timeout_s: float = 60.0
    outcomes: list[Outcome] = field(default_factory=list)
    _stopping: asyncio.Event = field(default_factory=asyncio.Event)
    _tasks: list[asyncio.Task[None]] = field(default_factory=list)

    def start(self) -> None:
        for index, operations in enumerate(self.operations):
            device = self.devices[index % len(self.devices)]
            self._tasks.append(asyncio.create_task(self._client(device, operations)))

    def stop(self) -> None:
        """No client starts another request; those under way go on."""
        self._stopping.set()

    async def join(self, timeout_s: float = 60.0) -> list[Outcome]:
        self.stop()
        done, pending = await asyncio.wait(self._tasks, timeout=timeout_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        for task in done:
            task.result()  # a failure of the load itself is the test's failure
        assert not pending, f"{len(pending)} clients still waiting {timeout_s} s after the stop"
        return self.outcomes

    async def _client(self, device: Device, operations: list[str]) -> None:
        limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
        async with httpx.AsyncClient(
            base_url=self.base_url, timeout=self.timeout_s, limits=limits
        ) as client:
            turn = 0
            while not self._stopping.is_set():
                name = operations[turn % len(operations)]
                turn += 1
                await self._one(client, device, name)

    async def _one(self, client: httpx.AsyncClient, device: Device, name: str) -> None:
        outcome = Outcome(name, time.monotonic())
        self.outcomes.append(outcome)

        async def trace(event: str, _info: Mapping[str, Any]) -> None:
            if event == "http11.send_request_body.complete":
                outcome.sent = time.monotonic()

        try:
            response = await OPERATIONS[name](client, device, outcome, {"trace": trace})
        except httpx.TransportError as exc:
            outcome.error = type(exc).__name__
            outcome.ended = time.monotonic()
            await asyncio.sleep(TRANSPORT_ERROR_PAUSE_S)  # as a client would, not in a tight loop
            return
        else:
            outcome.status = response.status_code
            outcome.retry_after = response.headers.get("retry-after")
        outcome.ended = time.monotonic()

    def since(self, moment: float) -> list[Outcome]:
        return [outcome for outcome in self.outcomes if outcome.started >= moment]


def mixed_operations(clients: int, operations: Iterable[str]) -> list[list[str]]:
    """Each client sends every operation in turn, starting from a different one."""
    names = list(operations)
    return [names[index % len(names) :] + names[: index % len(names)] for index in range(clients)]


def load_with_ready_poller(base_url: str, devices: list[Device], operations: list[str]) -> Load:
    """One client asks /ready all along; the others send every operation in turn."""
    clients = [*mixed_operations(len(devices) - 1, operations), ["ready"]]
    return Load(base_url, devices, clients)


def summary(outcomes: list[Outcome]) -> str:
    """What came back, by operation, and the slowest answer: for an assertion's message."""
    counts = Counter((o.op, o.status or o.error) for o in outcomes)
    slowest = max(outcomes, key=lambda o: o.latency)
    return f"{dict(counts)}; slowest {slowest.op} {slowest.latency:.2f} s"


async def register_devices(base_url: str, count: int) -> list[Device]:
    from tests.factories import register

    async with httpx.AsyncClient(base_url=base_url, timeout=30) as client:
        return list(await asyncio.gather(*(register(client) for _ in range(count))))


async def stored_writes(dsn: str, outcomes: Iterable[Outcome]) -> dict[str, set[Any]]:
    """Of the writes these outcomes stand for, the ones the database holds, by operation."""
    keys: dict[str, list[Any]] = {name: [] for name in WRITES}
    for outcome in outcomes:
        if outcome.op in keys and outcome.key is not None:
            keys[outcome.op].append(outcome.key)
    connection = await asyncpg.connect(dsn, timeout=10)
    try:
        users = await connection.fetch(
            "SELECT install_id FROM users WHERE install_id = ANY($1::text[])", keys["register"]
        )
        consents = await connection.fetch(
            "SELECT user_id, scope FROM consent_grants WHERE scope = ANY($1::text[])",
            [scope for _, scope in keys["consent"]],
        )
        terms = await connection.fetch(
            "SELECT user_id, term FROM vocabulary_terms WHERE term = ANY($1::text[])",
            [term for _, term in keys["vocabulary"]],
        )
        events = await connection.fetch(
            "SELECT id FROM command_events WHERE id = ANY($1::uuid[])", keys["telemetry"]
        )
    finally:
        await connection.close()
    return {
        "register": {row["install_id"] for row in users},
        "consent": {(row["user_id"], row["scope"]) for row in consents},
        "vocabulary": {(row["user_id"], row["term"]) for row in terms},
        "telemetry": {row["id"] for row in events},
    }


def lost_writes(outcomes: Iterable[Outcome], stored: Mapping[str, set[Any]]) -> list[Outcome]:
    """The writes that were answered 2xx and are not in the database."""
    return [
        outcome
        for outcome in outcomes
        if outcome.op in stored and outcome.ok and outcome.key not in stored[outcome.op]
    ]


async def until(condition: Callable[[], bool], timeout_s: float, what: str) -> None:
    """Wait for `condition`, failing the test if it does not hold within `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout_s} s: {what}"
        await asyncio.sleep(0.05)
