"""What the deletion tests share: a worker on the app's database, a look at a job's row and
ways to move its clock (due now, lease run out), an operator-alert receiver on a real local
port, and the database-wide search for a user."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sqlalchemy import String, Uuid, func, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

import lisan.models
from lisan.app import LisanApp
from lisan.core.settings import Settings
from lisan.core.types import utcnow
from lisan.deletion.models import DeletionJob
from lisan.worker import Worker

ROOT = Path(__file__).resolve().parents[2]


def worker_for(app: LisanApp, **kwargs: Any) -> Worker:
    """A worker on the app's engines, as `serve` runs it: polls read on the read sessions."""
    resources = app.services.resources
    return Worker(
        resources.settings, resources.sessions, read_sessions=resources.read_sessions, **kwargs
    )


async def job_row(engine: AsyncEngine, task_id: uuid.UUID) -> DeletionJob:
    async with engine.connect() as connection:
        row = (await connection.execute(select(DeletionJob).where(DeletionJob.id == task_id))).one()
    return DeletionJob(**row._mapping)


async def set_job(app: LisanApp, task_id: uuid.UUID, **values: object) -> None:
    """Write a job's columns behind the worker's back (a clock moved on, a state set up)."""
    async with app.services.resources.write_engine.begin() as connection:
        await connection.execute(
            update(DeletionJob).where(DeletionJob.id == task_id).values(**values)
        )


async def make_due(app: LisanApp, task_id: uuid.UUID) -> None:
    """Skip the backoff wait: the job is due now (the wait itself is tested on its own)."""
    await set_job(app, task_id, run_after=utcnow() - timedelta(seconds=1))


async def expire_lease(app: LisanApp, task_id: uuid.UUID) -> None:
    """The lease on the row (an attempt's, or an alert sender's) ran out a second ago."""
    await set_job(app, task_id, lease_until=utcnow() - timedelta(seconds=1))


async def rows_naming(engine: AsyncEngine, user_id: uuid.UUID) -> dict[str, int]:
    """Every table of the schema (from the metadata, so a table added later is searched too):
    the rows with a UUID column equal to the user's id or a text column equal to its text."""
    found: dict[str, int] = {}
    async with engine.connect() as connection:
        for table in lisan.models.Base.metadata.sorted_tables:
            for column in table.columns:
                if isinstance(column.type, Uuid):
                    match = column == user_id
                elif isinstance(column.type, String):
                    match = column == str(user_id)
                else:
                    continue
                count = (
                    await connection.execute(select(func.count()).select_from(table).where(match))
                ).scalar_one()
                if count:
                    found[f"{table.name}.{column.name}"] = count
    return found


def files_naming(storage_dir: Path, user_id: uuid.UUID) -> list[Path]:
    if not storage_dir.exists():
        return []
    return [path for path in storage_dir.rglob("*") if str(user_id) in str(path)]


@dataclass
class AlertReceiver:
    url: str
    alerts: list[dict[str, Any]] = field(default_factory=list)


@contextmanager
def alert_receiver() -> Iterator[AlertReceiver]:
    """A real HTTP server on a local port that records the JSON bodies POSTed to it."""
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            received.append(json.loads(self.rfile.read(length)))
            self.send_response(204)
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield AlertReceiver(f"http://127.0.0.1:{server.server_address[1]}/alerts", received)
    finally:
        server.shutdown()
        server.server_close()


async def stop(process: asyncio.subprocess.Process, sig: int) -> None:
    """Send `sig` and wait (at most 10 s) for the process to end."""
    process.send_signal(sig)
    await asyncio.wait_for(process.wait(), timeout=10)


async def reap(process: asyncio.subprocess.Process) -> None:
    """However a test ended, its child process does not outlive it."""
    if process.returncode is None:
        process.kill()
        await process.wait()


async def start_stalling_worker(settings: Settings, marker: Path) -> asyncio.subprocess.Process:
    """A real worker process (tests/deletion/stalling_worker.py), once it is inside the storage
    step of the due job."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.deletion.stalling_worker", settings.database_url,
        str(settings.storage_dir), str(marker),
        cwd=ROOT,
        # This checkout's sources, whichever checkout the environment installed.
        env={**os.environ, "PYTHONPATH": os.pathsep.join((str(ROOT), str(ROOT / "src")))},
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not await asyncio.to_thread(marker.exists):
        if process.returncode is not None or time.monotonic() > deadline:
            await reap(process)
            raise AssertionError("the stalling worker never reached its job")
        await asyncio.sleep(0.05)
    return process


async def kill_mid_job(settings: Settings, marker: Path) -> None:
    """A worker process that claims the due job and is killed (SIGKILL) in its storage step."""
    process = await start_stalling_worker(settings, marker)
    try:
        await stop(process, signal.SIGKILL)
    finally:
        await reap(process)
    assert process.returncode == -signal.SIGKILL
