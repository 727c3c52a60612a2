"""The raw floor for POST /v1/commands beside the service in bench.commands: its data, its
process and the check that it answers what the service answers.

`bench/floors/floor_commands.py` is a verbatim copy of `../shared/bench/floor_commands.py`
(its docstring says what it does and leaves out). It gets a database of its own (a SQLite file or
the PostgreSQL database `lisan_floor_commands`), the same limits that never say no, the same
fake provider, and is served as the service is: one uvicorn process on uvloop and httptools,
pinned to the same core.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx

from bench.kit.servers import ROOT, fresh_postgres_database
from bench.speed.service import HUGE_LIMIT

FLOOR_DATABASE = "lisan_floor_commands"
IDEMPOTENCY_KEY = "00000000-0000-4000-8000-000000000000"
# What differs between two answers to the same command by design: ids minted per command.
VOLATILE = frozenset({"command_id", "request_id", "plan_id", "step_id"})


def floor_env(kind: str, provider_port: int, workdir: Path) -> dict[str, str]:
    """The floor's environment on a fresh database of its own, its data made."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LISAN_", "FLOOR_"))}
    if kind == "sqlite":
        env["FLOOR_DB"] = str(workdir / "floor.db")
    else:
        fresh_postgres_database(FLOOR_DATABASE)
        env["FLOOR_PG"] = f"postgresql://postgres@127.0.0.1:5432/{FLOOR_DATABASE}"
    env |= {
        "FLOOR_PROVIDER": f"http://127.0.0.1:{provider_port}/v1",
        "FLOOR_PROVIDER_KEY": "bench",
        "FLOOR_RATE_COMMANDS": HUGE_LIMIT,
        "FLOOR_RATE_IP": HUGE_LIMIT,
        "FLOOR_STORAGE": str(workdir / "floor-objects"),
    }
    made = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "floors" / "floor_commands.py"), "make"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    env["BENCH_FLOOR_CREDENTIALS"] = made.stdout.strip().splitlines()[-1]
    return env


def floor_headers(env: dict[str, str]) -> dict[str, str]:
    made = json.loads(env["BENCH_FLOOR_CREDENTIALS"])
    return {"Authorization": f"Bearer {made['token']}", "X-Install-ID": made["install_id"]}


def floor_command(port: int, core: str | None) -> list[str]:
    pinned = ["taskset", "-c", core] if core is not None else []
    return [
        *pinned,
        sys.executable,
        "-m",
        "uvicorn",
        "bench.floors.floor_commands:app",
        "--port",
        str(port),
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--no-access-log",
        "--no-server-header",
        "--log-level",
        "warning",
        "--timeout-keep-alive",
        "75",
    ]


def answer(url: str, headers: dict[str, str], body: bytes) -> dict[str, Any]:
    """One command, checked accepted; its answer without the ids minted per command."""
    sent = {**headers, "X-Idempotency-Key": IDEMPOTENCY_KEY, "Content-Type": "application/json"}
    reply = httpx.post(url, content=body, headers=sent, timeout=30)
    if reply.status_code != 200 or reply.json().get("status") != "ACCEPTED":
        raise SystemExit(f"the bench's command was not accepted: {reply.status_code} {reply.text}")
    answered: dict[str, Any] = _without_ids(reply.json())
    return answered


def _without_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_ids(v) for k, v in value.items() if k not in VOLATILE}
    if isinstance(value, list):
        return [_without_ids(item) for item in value]
    return value


def same_answer(service: dict[str, Any], floor: dict[str, Any]) -> None:
    if service != floor:
        raise SystemExit(
            "the service and the floor answered the same command differently:\n"
            f"  service {json.dumps(service, sort_keys=True)}\n"
            f"  floor   {json.dumps(floor, sort_keys=True)}"
        )
