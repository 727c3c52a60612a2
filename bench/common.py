"""What the benchmarks share: free ports, starting a server and waiting for it, reading wrk's
report, and measuring: percentiles, and the CPU time of a process tree, of PostgreSQL and of
the whole machine (from /proc)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import re
import socket
import statistics
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
POSTGRES_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"


def fresh_postgres_database(name: str) -> None:
    """Drop `name` (its sessions too) and create it empty, on the local PostgreSQL."""

    async def recreate() -> None:
        import asyncpg

        connection = await asyncpg.connect(POSTGRES_ADMIN)
        try:
            await connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
            await connection.execute(f"CREATE DATABASE {name}")
        finally:
            await connection.close()

    asyncio.run(recreate())


def fresh_service_database(name: str) -> str:
    """A new, empty database `name` on the local PostgreSQL, as the service's URL names it."""
    fresh_postgres_database(name)
    return f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(url: str, timeout_s: float = 60) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"server at {url} did not start")


@contextmanager
def process(
    command: list[str], env: dict[str, str], ready_url: str, log: Path | None = None
) -> Iterator[int]:
    """Start `command`, wait until `ready_url` answers, yield its pid. Its output goes to
    /dev/null, or its stderr (where the service logs) to `log` when given."""
    with contextlib.ExitStack() as files:  # the child keeps its own copy of the descriptor
        stderr = files.enter_context(log.open("ab")) if log else subprocess.DEVNULL
        child = subprocess.Popen(
            command, env=env, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=stderr
        )
    try:
        wait_for(ready_url)
        if child.poll() is not None:
            raise SystemExit(f"{command[2:4]} exited with {child.returncode}; is the port free?")
        yield child.pid
    finally:
        child.terminate()
        try:
            child.wait(timeout=15)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(timeout=5)


def wrk_millis(text: str) -> float:
    """A latency as wrk prints it ("812.34us", "1.20ms", "2.5s"), in milliseconds."""
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text)
    if match is None:
        raise ValueError(f"wrk printed a latency this script cannot read: {text!r}")
    number, unit = match.groups()
    return float(number) * {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60_000.0}[unit]


def wrk_field(pattern: str, text: str) -> str:
    """The first group of `pattern` in wrk's output; ValueError when it is not there."""
    match = re.search(pattern, text)
    if match is None:
        raise ValueError(f"no {pattern!r} in wrk's output")
    return match.group(1)


# --- measuring --------------------------------------------------------------------------------


def percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


def process_tree(pid: int) -> list[int]:
    """`pid` and its descendants (uvicorn's worker processes under --workers)."""
    tree, index = [pid], 0
    while index < len(tree):
        with contextlib.suppress(OSError):
            for task in Path(f"/proc/{tree[index]}/task").iterdir():
                tree += [int(child) for child in (task / "children").read_text().split()]
        index += 1
    return tree


def _cpu_ticks(pid: int, *, reaped: bool = False) -> int:
    """User + system clock ticks of `pid` so far (/proc/PID/stat fields 14 and 15), and with
    `reaped` those of its children that have exited (16 and 17); 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0
    return sum(int(value) for value in fields[11 : 15 if reaped else 13])


def cpu_seconds(pid: int) -> float:
    """User + system CPU time so far of `pid` and its descendants."""
    return sum(_cpu_ticks(member) for member in process_tree(pid)) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """(busy, total) CPU seconds of the whole machine so far, over all cores (/proc/stat)."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle + iowait
    ticks = os.sysconf("SC_CLK_TCK")
    return (sum(values) - idle) / ticks, sum(values) / ticks


def postgres_cpu_seconds() -> float:
    """User + system CPU time so far of every PostgreSQL server process on the machine, and of
    the backends that have exited (the postmaster's reaped children)."""
    ticks = 0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            if "(postgres)" in stat.read_text():
                ticks += _cpu_ticks(int(stat.parent.name), reaped=True)
    return ticks / os.sysconf("SC_CLK_TCK")


def add_decoder_settings(parser: argparse.ArgumentParser) -> None:
    """--english-wip and --garbage-weight: the two decoder settings the accuracy benches move
    (`Recognizer(english_wip=...)`, `grammar.build(garbage_weight=...)`), the product's by
    default."""
    from lisan.core.locale import Locale
    from lisan.providers.local.grammar import GARBAGE_WEIGHT
    from lisan.providers.local.recognizer import WORD_INSERTION_PENALTY

    parser.add_argument(
        "--english-wip",
        type=float,
        default=WORD_INSERTION_PENALTY[Locale.EN_US],
        help="the English word insertion penalty to measure (default: the product's)",
    )
    parser.add_argument(
        "--garbage-weight",
        default=GARBAGE_WEIGHT,
        help="the garbage loop's prior to measure, \"off\" for none (default: the product's)",
    )


# py-spy's flags and sampling rate (Hz) for each PROFILE_MODE.
PROFILE_MODES = {
    "nonblocking": (["--nonblocking"], 1000),
    "blocking": ([], 100),
    "native": (["--native"], 250),
    "gil": (["--gil", "--nonblocking"], 1000),
}


@contextmanager
def profiled(pid: int, output: Path | None, seconds: int) -> Iterator[None]:
    """py-spy recording `pid` for `seconds` in the background, when `output` is given.

    PROFILE_MODE in the environment says how: `nonblocking` (the default: Python frames, the
    server never paused, 1000 Hz; a stack read while it changes may come out cut short),
    `blocking` (Python frames, the server paused at each sample, 100 Hz: whole stacks) or
    `native` (the C under them too: uvloop, the drivers, ggml; paused, 250 Hz) or `gil` (only the
    thread holding the GIL, never paused, 1000 Hz: the Python work, without the threads waiting
    their turn that `nonblocking` counts as busy). A pausing mode
    slows the server, so that round's own figures are not the bench's."""
    if output is None:
        yield
        return
    spy = ROOT / ".venv" / "bin" / "py-spy"
    command = [str(spy), "record", "-p", str(pid), "-d", str(seconds), "-f", "raw"]
    mode = os.environ.get("PROFILE_MODE", "nonblocking")
    if mode not in PROFILE_MODES:
        raise SystemExit(f"PROFILE_MODE={mode}: one of {', '.join(PROFILE_MODES)}")
    flags, rate_hz = PROFILE_MODES[mode]
    command += [*flags, "--rate", str(rate_hz), "--subprocesses"]
    recorder = subprocess.Popen(
        [*command, "-o", str(output)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        yield
    finally:
        try:
            _, errors = recorder.communicate(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            recorder.kill()
            recorder.communicate(timeout=5)
            errors = b"timed out"
        if recorder.returncode != 0:
            print(f"  py-spy failed: {errors.decode(errors='replace').strip()[-300:]}")


def pin_load_away_from(core: str | None) -> str | None:
    """Pins this process, and so wrk and the fake provider it starts, to the cores other than
    the servers' (`None`: unpinned, or no other core). On the servers' core they preempted the
    server being measured and took its caches: the same build measured twice in one run
    differed by up to 20% a round."""
    if core is None:
        return None
    others = os.sched_getaffinity(0) - _cores(core)
    if not others:
        return None
    os.sched_setaffinity(0, others)
    return ",".join(str(number) for number in sorted(others))


def _cores(listed: str) -> set[int]:
    """The cores of taskset's list form (`0`, `0,2`, `0-1`), as a bench's --core takes it."""
    cores: set[int] = set()
    for item in listed.split(","):
        first, _, last = item.partition("-")
        try:
            cores.update(range(int(first), int(last or first) + 1))
        except ValueError:
            raise SystemExit(f"cores {listed}: not a list of cores (0, 0,2 or 0-1)") from None
    return cores
