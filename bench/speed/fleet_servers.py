"""The fleet's servers (`bench.fleet`): `lisan serve` on PostgreSQL and Redis against the fake
provider, every rate limit out of reach, its Prometheus listener and its log, and the log's
warnings summarised."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from bench.kit.servers import free_port, process, wait_for

DATABASE = "lisan_bench_fleet"
DATABASE_URL = f"postgresql+asyncpg://postgres@127.0.0.1:5432/{DATABASE}"
REDIS_URL = "redis://127.0.0.1:6379/13"
HIGH_LIMIT = "100000/minute"
PROVIDER_DELAY_S = 0.3
WORKERS = 2


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
