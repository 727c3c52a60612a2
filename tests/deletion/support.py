"""What the deletion tests share: a worker on the app's database, a look at a job's row, an
operator-alert receiver on a real local port, and the database-wide search for a user."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from sqlalchemy import String, Uuid, func, select
from sqlalchemy.ext.asyncio import AsyncEngine

import lisan.models
from lisan.deletion.models import DeletionJob


async def job_row(engine: AsyncEngine, task_id: uuid.UUID) -> DeletionJob:
    async with engine.connect() as connection:
        row = (await connection.execute(select(DeletionJob).where(DeletionJob.id == task_id))).one()
    return DeletionJob(**row._mapping)


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
