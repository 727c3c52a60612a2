"""`lisan serve --workers 2` with LISAN_METRICS_PORT, as an operator runs it: /metrics on its
own listener (never the API's port), and counters that add up the work of both processes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from tests.fixtures.network import closed_port
from tests.fixtures.serve import lisan_serve, serve_env

REQUESTS = 60
HEALTH_ANSWERED = (
    "lisan_http_requests_total",
    (("method", "GET"), ("route", "/health"), ("status", "200")),
)

Scraped = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def scrape(client: httpx.AsyncClient, metrics_url: str) -> Scraped:
    text = (await client.get(metrics_url)).text
    return {
        (found.name, tuple(sorted(found.labels.items()))): found.value
        for family in text_string_to_metric_families(text)
        for found in family.samples
    }


async def test_two_processes_are_counted_as_one_service(database_url: str, tmp_path: Path) -> None:
    metrics_port, metrics_dir = closed_port(), tmp_path / "metrics"
    metrics_dir.mkdir()
    # An earlier run's file, which would not parse: the start must empty the directory.
    (metrics_dir / "counter_1.db").write_bytes(b"left by an earlier run")
    env = serve_env(
        database_url,
        tmp_path / "objects",
        metrics_port=str(metrics_port),
        metrics_dir=str(metrics_dir),
        log_level="WARNING",
    )
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    metrics_url = f"http://127.0.0.1:{metrics_port}/metrics"
    async with (
        lisan_serve(env, tmp_path / "serve.log", workers=2) as server,
        httpx.AsyncClient(base_url=server.base_url, timeout=10) as client,
    ):
        assert not (metrics_dir / "counter_1.db").exists(), "the start empties the directory"
        before = await scrape(client, metrics_url)
        # Many connections at once, so both processes serve some.
        answers = await asyncio.gather(*(client.get("/health") for _ in range(REQUESTS)))
        assert all(answer.status_code == 200 for answer in answers)
        assert (await client.get("/metrics")).status_code == 404, "never on the API's port"
        after = await scrape(client, metrics_url)
    # Exactly what the two processes answered: nothing counted twice, nothing lost between
    # the processes' files (the start's health polls are in both scrapes).
    assert after[HEALTH_ANSWERED] - before.get(HEALTH_ANSWERED, 0.0) == REQUESTS
    assert after[("process_resident_memory_bytes", ())] > 0
    assert after[("process_open_fds", ())] > 0


def test_the_default_metrics_directory_is_private_and_fresh(settings_factory: Any) -> None:
    """Without LISAN_METRICS_DIR, each start makes its own directory (mode 0700, a name nobody
    can guess or pre-create in the shared temp folder), never a predictable one it empties."""
    import stat

    from lisan.server.metrics_listener import metrics_dir

    settings = settings_factory(metrics_port=closed_port())
    first, second = metrics_dir(settings), metrics_dir(settings)
    assert first != second
    for path in (first, second):
        assert path.is_dir()
        assert stat.S_IMODE(path.stat().st_mode) == 0o700
        assert list(path.iterdir()) == []
