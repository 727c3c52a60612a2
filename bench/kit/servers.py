"""Starting what a bench measures: the house's root, free ports, a server started and waited
for, and fresh databases on the local PostgreSQL."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
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
