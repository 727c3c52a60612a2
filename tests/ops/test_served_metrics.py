"""`lisan serve --workers 2` with LISAN_METRICS_PORT, as an operator runs it: /metrics on its
own listener (never the API's port), and counters that add up the work of both processes."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.network import closed_port

START_TIMEOUT_S = 60.0
REQUESTS = 60


@pytest.fixture
def served(database_url: str, tmp_path: Path) -> Iterator[tuple[str, str, int]]:
    """The API's and the metrics listener's base URLs of a fresh `lisan serve --workers 2`, and
    how many of its /health polls were answered while it started."""
    api_port, metrics_port = closed_port(), closed_port()
    metrics_dir = tmp_path / "metrics"
    metrics_dir.mkdir()
    (metrics_dir / "counter_1.db").write_bytes(b"left by an earlier run")
    env = {
        **os.environ,
        "LISAN_DATABASE_URL": database_url,
        "LISAN_STORAGE_DIR": str(tmp_path / "objects"),
        "LISAN_METRICS_PORT": str(metrics_port),
        "LISAN_METRICS_DIR": str(metrics_dir),
        "LISAN_RUN_WORKER": "false",
        "LISAN_LOG_LEVEL": "WARNING",
    }
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    command = [sys.executable, "-m", "lisan", "serve", "--port", str(api_port), "--workers", "2"]
    log = (tmp_path / "serve.log").open("wb")
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    api, metrics_url = f"http://127.0.0.1:{api_port}", f"http://127.0.0.1:{metrics_port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            try:
                if httpx.get(api + "/health", timeout=5).status_code == 200:
                    break
            except httpx.ConnectError:  # not listening yet: nothing was served
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail((tmp_path / "serve.log").read_text(errors="replace")[-2000:])
            time.sleep(0.2)
        yield api, metrics_url, 1
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def scrape(metrics_url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = httpx.get(metrics_url + "/metrics", timeout=5).text
    return {
        (found.name, tuple(sorted(found.labels.items()))): found.value
        for family in text_string_to_metric_families(text)
        for found in family.samples
    }


async def test_two_processes_are_counted_as_one_service(served: tuple[str, str, int]) -> None:
    api, metrics_url, polled = served
    async with httpx.AsyncClient(base_url=api, timeout=10) as client:
        # Many connections at once, so both processes serve some.
        answers = await asyncio.gather(*(client.get("/health") for _ in range(REQUESTS)))
        assert all(answer.status_code == 200 for answer in answers)
        assert (await client.get("/metrics")).status_code == 404, "never on the API's port"
    seen = scrape(metrics_url)
    key = (
        "lisan_http_requests_total",
        (("method", "GET"), ("route", "/health"), ("status", "200")),
    )
    # Exactly what the two processes answered, the start's answered poll included: nothing
    # counted twice, nothing lost between the processes' files.
    assert seen[key] == REQUESTS + polled
    assert seen[("process_resident_memory_bytes", ())] > 0
    assert seen[("process_open_fds", ())] > 0
    # the leftover file of an "earlier run" was removed at start: it would not parse
    assert ("lisan_http_requests_total", ()) not in seen
