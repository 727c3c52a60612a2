"""What the benchmarks share: free ports, waiting for a server, and reading wrk's report."""

from __future__ import annotations

import re
import socket
import time

import httpx


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
