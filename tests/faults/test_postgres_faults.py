"""PostgreSQL stopped or frozen under load, against a real `lisan serve` on a private cluster:
every request answers, within the database bound, 2xx or 503 with Retry-After (never a 500,
never a hang); readiness follows the database; the same server recovers once it is back; and no
write that was answered 2xx is missing afterwards.

Issue: a frozen PostgreSQL (SIGSTOP) held requests as long as it stayed frozen (15.3 s
measured): no statement or command timeout. Every database call now has a bound."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx

from lisan.db.database import DATABASE_TIMEOUT_S
from lisan.probes.service import READY_CACHE_S
from tests.fixtures.load import (
    Load,
    Outcome,
    load_with_ready_poller,
    lost_writes,
    register_devices,
    stored_writes,
    summary,
    until,
)
from tests.fixtures.private_servers import PrivatePostgres, PrivateRedis
from tests.fixtures.serve import LisanServer, lisan_serve, serve_env

CLIENTS = 20
# What a loaded 2-core machine may add to the bound before an answer is "a hang".
SLACK_S = 3.0
OPERATIONS = ["register", "consent", "vocabulary", "me", "telemetry"]
RECOVERY_S = 20.0
WARM_UP_S = 20.0  # at most this long for every kind of request to be answered 2xx once


def _recovered(load: Load, since: float) -> bool:
    """Every kind of request has been answered 2xx again since `since`."""
    answered = {outcome.op for outcome in load.since(since) if outcome.ok}
    return answered >= {*OPERATIONS, "ready"}


def _assert_every_answer_bounded(outcomes: list[Outcome]) -> None:
    """2xx or 503 with Retry-After, within the bound; never a 500, a reset or a hang."""
    assert outcomes
    unexpected = [o for o in outcomes if not (o.ok or o.status == 503)]
    assert not unexpected, f"answers other than 2xx and 503: {summary(unexpected)}"
    slow = [o for o in outcomes if o.latency >= DATABASE_TIMEOUT_S + SLACK_S]
    assert not slow, f"{len(slow)} answers past the bound: {summary(slow)}"
    # /ready's 503 is its answer, not an error; every other 503 says when to come back.
    refused = [o for o in outcomes if o.status == 503 and o.op != "ready"]
    assert all(o.retry_after for o in refused), "a 503 without Retry-After"


async def _assert_no_write_lost(postgres: PrivatePostgres, database: str, load: Load) -> None:
    """Every write answered 2xx is in the database (telemetry: once the writer caught up)."""
    deadline = time.monotonic() + RECOVERY_S
    while True:
        stored = await stored_writes(postgres.dsn(database), load.outcomes)
        lost = lost_writes(load.outcomes, stored)
        if not lost or time.monotonic() > deadline:
            break
        await asyncio.sleep(0.5)
    assert not lost, f"{len(lost)} writes answered 2xx are missing: {Counter(o.op for o in lost)}"
    answered = Counter(o.op for o in load.outcomes if o.ok)
    assert all(answered[op] > 0 for op in ("register", "consent", "vocabulary", "telemetry"))


async def _ready(base_url: str) -> int:
    async with httpx.AsyncClient(base_url=base_url, timeout=DATABASE_TIMEOUT_S + SLACK_S) as http:
        return (await http.get("/ready")).status_code


@asynccontextmanager
async def _under_load(
    postgres: PrivatePostgres, redis_server: PrivateRedis, tmp_path: Path
) -> AsyncIterator[tuple[LisanServer, Load, str]]:
    """A server on a fresh database of the private cluster, its load running until every kind
    of request has been answered 2xx (a loaded machine may take seconds for the first ones):
    the server, the load and the database's name."""
    database = await postgres.new_database()
    env = serve_env(postgres.url(database), tmp_path / "objects", redis_server.url)
    async with lisan_serve(env, tmp_path / "serve.log") as server:
        load = load_with_ready_poller(
            server.base_url, await register_devices(server.base_url, CLIENTS), OPERATIONS
        )
        load.start()
        await until(lambda: _recovered(load, 0.0), WARM_UP_S, "the first answers")
        yield server, load, database


async def test_stopped_postgres_answers_503_and_the_server_recovers(
    postgres: PrivatePostgres, redis_server: PrivateRedis, tmp_path: Path
) -> None:
    async with _under_load(postgres, redis_server, tmp_path) as (server, load, database):
        await asyncio.to_thread(postgres.stop)
        stopped = time.monotonic()
        await asyncio.sleep(READY_CACHE_S + 2)
        restarting = time.monotonic()
        await asyncio.to_thread(postgres.start)
        restarted = time.monotonic()
        await until(lambda: _recovered(load, restarted), RECOVERY_S, "recovery after restart")
        outcomes = await load.join()
        assert await _ready(server.base_url) == 200
        assert server.process.returncode is None, "the server did not survive the outage"

    _assert_every_answer_bounded(outcomes)
    # /ready may repeat an answer from just before the stop for READY_CACHE_S.
    during = [o for o in outcomes if o.started > stopped + READY_CACHE_S and o.ended < restarting]
    assert during, "no request was answered while PostgreSQL was stopped"
    assert {o.status for o in during} == {503}, summary(during)
    assert any(o.op == "ready" for o in during)
    assert any(o.ok for o in outcomes if o.ended < stopped)
    await _assert_no_write_lost(postgres, database, load)


async def test_frozen_postgres_answers_within_the_bound(
    postgres: PrivatePostgres, redis_server: PrivateRedis, tmp_path: Path
) -> None:
    """SIGSTOP: connections stay open and nothing answers. Before the fix every request then
    waited as long as the freeze lasted; it must answer 503 within the bound instead."""
    async with _under_load(postgres, redis_server, tmp_path) as (server, load, database):
        postgres.freeze()
        frozen = time.monotonic()
        # Longer than the bound and its slack: a request held by the freeze shows as a hang.
        await asyncio.sleep(DATABASE_TIMEOUT_S + SLACK_S + 2)
        postgres.thaw()
        thawed = time.monotonic()
        await until(lambda: _recovered(load, thawed), RECOVERY_S, "recovery after SIGCONT")
        outcomes = await load.join()
        assert await _ready(server.base_url) == 200
        assert server.process.returncode is None

    _assert_every_answer_bounded(outcomes)
    during = [o for o in outcomes if o.started > frozen and o.ended < thawed]
    assert any(o.status == 503 and o.op == "ready" for o in during), summary(during)
    assert any(o.status == 503 and o.op != "ready" for o in during), summary(during)
    await _assert_no_write_lost(postgres, database, load)
