"""SIGTERM under load, against a real `lisan serve` on a private cluster: every request already
sent when the signal comes is answered (requests the server is known to be in the middle of
among them; see UNREAD_WINDOW_S for the one exception), the process shuts down cleanly, and
every telemetry event answered 202 is in the database or counted as dropped in the log line the
writer leaves at shutdown, also when the database is down at that moment."""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import asyncpg

from tests.fixtures.load import (
    Load,
    Outcome,
    mixed_operations,
    register_devices,
    stored_writes,
    until,
)
from tests.fixtures.private_servers import PrivatePostgres
from tests.fixtures.processes import stop
from tests.fixtures.serve import LisanServer, lisan_serve, serve_env

CLIENTS = 20
HELD = 5  # consent writes held on a lock while the server is told to stop
DROP_COUNTS = (
    "dropped_overflow",
    "dropped_foreign",
    "dropped_invalid",
    "dropped_error",
    "lost_at_close",
)


@asynccontextmanager
async def _locked(dsn: str, table: str) -> AsyncIterator[asyncpg.Connection]:
    """`table` locked against every reader and writer until the block ends (or the server)."""
    connection = await asyncpg.connect(dsn, timeout=10)
    try:
        transaction = connection.transaction()
        await transaction.start()
        await connection.execute(f'LOCK TABLE "{table}" IN ACCESS EXCLUSIVE MODE')
        yield connection
    finally:
        connection.terminate()  # ends the transaction, and so the lock; the server may be gone


async def _waiting_on_locks(dsn: str) -> int:
    connection = await asyncpg.connect(dsn, timeout=10)
    try:
        waiting: int = await connection.fetchval(
            "SELECT count(*) FROM pg_stat_activity"
            " WHERE datname = current_database() AND wait_event_type = 'Lock'"
        )
        return waiting
    finally:
        await connection.close()


def _writer_stopped(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The counts the telemetry writer logs when it stops."""
    stopped = [r for r in records if r.get("msg") == "telemetry writer stopped"]
    assert len(stopped) == 1, "the telemetry writer did not log its counts once at shutdown"
    return stopped[0]


def _assert_shut_down_cleanly(server: LisanServer) -> None:
    # uvicorn re-raises the signal once it has shut down, so the status is that of SIGTERM.
    assert server.process.returncode in (0, -signal.SIGTERM), server.log_tail()
    messages = [record.get("msg") for record in server.log_records()]
    assert "Application shutdown complete." in messages, server.log_tail()


FIRST_EVENT_S = 20.0  # at most this long for the load's first accepted event


def _accepted_events(outcomes: list[Outcome]) -> set[Any]:
    return {o.key for o in outcomes if o.op == "telemetry" and o.status == 202}


# uvicorn, shutting down, closed at once every keep-alive connection it was not reading a
# request on: a request that had reached the socket but not been read was reset (about one run
# in ten: a ReadError for a POST sent 10 ms before SIGTERM). lisan.server.protocol now gives idle
# connections SHUTDOWN_GRACE_S first, so every request sent before SIGTERM is answered.
UNREAD_WINDOW_S = 0.0


def _assert_sent_requests_answered(
    outcomes: list[Outcome], signalled: float, statuses: set[int]
) -> None:
    """A request on the wire before SIGTERM gets its answer: no
    reset, no closed connection. Requests sent later may find the server gone (refused, or
    closed while idle)."""
    sent = [o for o in outcomes if o.sent is not None and o.sent < signalled - UNREAD_WINDOW_S]
    assert sent
    unanswered = [o for o in sent if o.status is None]
    errors = Counter(o.error for o in unanswered)
    assert not unanswered, f"sent before SIGTERM, never answered: {errors}"
    answered = Counter(o.status for o in outcomes if o.status is not None)
    assert set(answered) <= statuses, answered


async def test_sigterm_under_load_finishes_every_request_under_way(
    postgres: PrivatePostgres, tmp_path: Path
) -> None:
    database = await postgres.new_database()
    dsn = postgres.dsn(database)
    env = serve_env(postgres.url(database), tmp_path / "objects")
    async with lisan_serve(env, tmp_path / "serve.log") as server:
        devices = await register_devices(server.base_url, CLIENTS)
        operations = mixed_operations(CLIENTS, ["telemetry", "me", "telemetry", "vocabulary"])
        load = Load(server.base_url, devices, operations)
        load.start()
        await asyncio.sleep(1.0)
        async with _locked(dsn, "consent_grants") as lock:
            # Requests the server is certainly in the middle of: writes waiting on the lock.
            held = Load(server.base_url, devices[:HELD], [["consent"]] * HELD)
            held.start()
            deadline = time.monotonic() + 10
            while await _waiting_on_locks(dsn) < HELD:
                assert time.monotonic() < deadline, "the held requests never reached the lock"
                await asyncio.sleep(0.05)
            held.stop()  # one request each
            signalled = time.monotonic()
            stopping = asyncio.create_task(stop(server.process, signal.SIGTERM))
            await asyncio.sleep(1.0)
            assert not stopping.done(), "the server exited with requests under way"
            await lock.execute("ROLLBACK")
        await stopping
        load.stop()
        outcomes = await load.join() + await held.join()
    _assert_shut_down_cleanly(server)

    held_outcomes = [o for o in outcomes if o.op == "consent"]
    assert [o.status for o in held_outcomes] == [200] * HELD
    _assert_sent_requests_answered(outcomes, signalled, {200, 201, 202})
    stored = await stored_writes(dsn, outcomes)
    assert {o.key for o in held_outcomes} <= stored["consent"]

    accepted = _accepted_events(outcomes)
    counts = _writer_stopped(server.log_records())
    assert counts["accepted"] == len(accepted), "a 202 never reached its client"
    not_stored = accepted - stored["telemetry"]
    assert sum(counts[name] for name in DROP_COUNTS) == len(not_stored)
    assert not not_stored, "the database was up: every event accepted is flushed at shutdown"
    assert counts["stored"] == len(stored["telemetry"])


async def test_sigterm_with_the_database_stopped_counts_every_event_it_drops(
    postgres: PrivatePostgres, tmp_path: Path
) -> None:
    """The writer cannot store the buffered events (their table is locked, then PostgreSQL
    stops); at SIGTERM it gives up after its flush bound and says how many it dropped."""
    database = await postgres.new_database()
    dsn = postgres.dsn(database)
    env = serve_env(postgres.url(database), tmp_path / "objects", telemetry_flush_timeout_s="2")
    async with lisan_serve(env, tmp_path / "serve.log") as server:
        devices = await register_devices(server.base_url, CLIENTS)
        load = Load(server.base_url, devices, [["telemetry", "me"]] * CLIENTS)
        async with _locked(dsn, "command_events"):
            load.start()
            await asyncio.sleep(1.5)
            # and until an event is buffered: a loaded machine answered none in the 1.5 s
            await until(lambda: bool(_accepted_events(load.outcomes)), FIRST_EVENT_S, "an event")
            await asyncio.to_thread(postgres.stop)  # its session and lock go with it
        signalled = time.monotonic()
        await stop(server.process, signal.SIGTERM)
        load.stop()
        outcomes = await load.join()
    _assert_shut_down_cleanly(server)
    await asyncio.to_thread(postgres.start)

    _assert_sent_requests_answered(outcomes, signalled, {200, 202, 503})
    accepted = _accepted_events(outcomes)
    stored = (await stored_writes(dsn, outcomes))["telemetry"]
    records = server.log_records()
    counts = _writer_stopped(records)
    assert len(accepted) > 0
    assert counts["accepted"] == len(accepted)
    assert sum(counts[name] for name in DROP_COUNTS) == len(accepted - stored)
    assert counts["stored"] == len(stored)
    lost = [r for r in records if r.get("msg") == "telemetry not flushed at shutdown"]
    assert [r["lost"] for r in lost] == [counts["lost_at_close"]]


async def test_a_request_on_an_idle_connection_just_after_sigterm_is_answered(
    tmp_path: Path,
) -> None:
    """The race above, made certain: the request reaches a keep-alive connection after the
    server began to stop. It is answered (and the connection then closed), not reset."""
    env = serve_env(f"sqlite+aiosqlite:///{tmp_path}/lisan.db", tmp_path / "objects")
    async with lisan_serve(env, tmp_path / "serve.log") as server:
        host, port = server.base_url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        request = f"GET /health HTTP/1.1\r\nHost: {host}\r\n\r\n".encode()
        try:
            writer.write(request)
            first = await _one_response(reader)
            server.process.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.15)  # the server is stopping: it closed its listener
            writer.write(request)
            second = await _one_response(reader)
        finally:
            writer.close()
        await asyncio.wait_for(server.process.wait(), timeout=15)
    assert first.startswith(b"HTTP/1.1 200")
    assert second.startswith(b"HTTP/1.1 200")
    assert b"connection: close" in second.lower()


async def _one_response(reader: asyncio.StreamReader) -> bytes:
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout=5)
    length = next(
        int(line.split(b":", 1)[1])
        for line in head.lower().split(b"\r\n")
        if line.startswith(b"content-length:")
    )
    return head + await asyncio.wait_for(reader.readexactly(length), timeout=5)
