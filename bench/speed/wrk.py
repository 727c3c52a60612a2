"""Loading a server with wrk and reading its report: requests/s, p50/p99, non-2xx answers
and the server's CPU per request, and the median of a run's rounds."""

from __future__ import annotations

import re
import statistics
import subprocess
import tempfile
from dataclasses import dataclass

from bench.kit.cpu import cpu_seconds


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


def median(samples: list[Sample]) -> Sample:
    return Sample(
        statistics.median(s.requests_per_s for s in samples),
        statistics.median(s.p50_ms for s in samples),
        statistics.median(s.p99_ms for s in samples),
        sum(s.non_2xx for s in samples),
        statistics.median(s.cpu_us for s in samples),
    )
