"""Two `lisan serve` processes on one PostgreSQL and one Redis behave as one service: real
processes (tests/fixtures/serve.py), the voice provider a fake server in this test's loop.

- 50 concurrent duplicates of one command, sent to both, make one provider call;
- a per-user limit holds across both (Redis's sliding window);
- the circuit breaker one process opens is open in the other;
- deletion jobs, with the worker running in both, each run once, and the purges remove each
  expired row once (their counts, from both processes' /metrics, add up to the rows);
- telemetry sent to each is written.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from datetime import timedelta
from pathlib import Path
from typing import NamedTuple

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.commands.models import DONE, IdempotencyRecord
from lisan.db.types import utcnow
from lisan.deletion.models import DeletionJob
from lisan.telemetry.models import CommandEvent
from lisan.testing.openai_script import DEFAULT_PLAN, Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import command_body, raw_body
from tests.fixtures.devices import Device, grant, register
from tests.fixtures.network import closed_port
from tests.fixtures.serve import LisanServer, lisan_serve, serve_env

pytestmark = pytest.mark.postgres_only

REPLAYED = "idempotent-replayed"


class Pair(NamedTuple):
    """A client of each process, the processes (their logs), and each one's /metrics URL when
    the fleet was started with `metrics=True`."""

    first: httpx.AsyncClient
    second: httpx.AsyncClient
    servers: list[LisanServer]
    metrics_urls: list[str]


Fleet = Callable[..., AbstractAsyncContextManager[Pair]]


@pytest.fixture(params=["two-serves", "workers-2"])
def fleet(
    request: pytest.FixtureRequest,
    database_url: str,
    redis_url: str,
    fake_openai: FakeOpenAI,
    tmp_path: Path,
) -> Fleet:
    """`fleet(**settings)`: two server processes on the test database and Redis, the provider
    the fake server. Either two `lisan serve` (a client of each) or one `lisan serve --workers
    2` (two clients of it: the kernel spreads their connections over its processes)."""
    separate = request.param == "two-serves"

    @asynccontextmanager
    async def start(*, metrics: bool = False, **settings: str) -> AsyncIterator[Pair]:
        env = serve_env(
            database_url,
            tmp_path / "objects",
            redis_url,
            provider="openai",
            openai_base_url=fake_openai.base_url,
            openai_api_key="sk-test-not-a-real-key",
            **settings,
        )
        envs = [dict(env), dict(env)] if separate else [dict(env)]
        ports = [closed_port() for _ in envs] if metrics else []
        for each, port in zip(envs, ports, strict=False):
            each["LISAN_METRICS_PORT"] = str(port)
            each["LISAN_METRICS_DIR"] = str(tmp_path / f"metrics-{port}")
        async with AsyncExitStack() as stack:
            # Started at once: each takes seconds to import and migrate.
            servers: list[LisanServer] = list(
                await asyncio.gather(
                    *(
                        stack.enter_async_context(
                            lisan_serve(
                                each, tmp_path / f"serve-{n}.log", workers=1 if separate else 2
                            )
                        )
                        for n, each in enumerate(envs)
                    )
                )
            )
            clients = [
                await stack.enter_async_context(
                    httpx.AsyncClient(base_url=server.base_url, timeout=30)
                )
                for server in (servers if separate else servers * 2)
            ]
            metrics_urls = [f"http://127.0.0.1:{port}/metrics" for port in ports]
            yield Pair(clients[0], clients[1], servers, metrics_urls)

    return start


async def test_fifty_duplicates_across_two_processes_make_one_provider_call(
    fleet: Fleet, fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(Answer.plan(DEFAULT_PLAN, delay_s=0.5))
    raw, key = raw_body(command_body()), str(uuid.uuid4())
    async with fleet() as (first, second, _, _):
        device = await register(first)
        await grant(first, device, "org.telegram.messenger")
        headers = {
            **device.headers,
            "X-Idempotency-Key": key,
            "Content-Type": "application/json",
        }
        answers = await asyncio.gather(
            *(
                (first if n % 2 else second).post("/v1/commands", content=raw, headers=headers)
                for n in range(50)
            )
        )
    assert [answer.status_code for answer in answers] == [200] * 50
    assert len({answer.content for answer in answers}) == 1
    assert sum(answer.headers.get(REPLAYED) == "true" for answer in answers) == 49
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 1)


async def test_a_per_user_limit_holds_across_processes(fleet: Fleet) -> None:
    async with fleet(rate_limit_user="30/minute") as (first, second, _, _):
        device = await register(first)  # its GET /v1/users/me is the limit's first hit
        answers = await asyncio.gather(
            *(
                (first if n % 2 else second).get("/v1/users/me", headers=device.headers)
                for n in range(60)
            )
        )
    statuses = [answer.status_code for answer in answers]
    assert set(statuses) == {200, 429}
    # The sliding window counter (limits, in Redis) is exact within one window: 29 more pass.
    # Across a minute's boundary it weighs the previous window's one hit by the share of it
    # still in the window, so up to 30 may (its documented approximation).
    assert 29 <= statuses.count(200) <= 30, statuses.count(200)


# Two serves only: one serve's workers may take all six commands on one process.
@pytest.mark.parametrize("fleet", ["two-serves"], indirect=True)
async def test_a_breaker_opened_by_one_process_is_open_in_the_other(
    fleet: Fleet, fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.default = Answer.error(500)
    raw = raw_body(command_body())
    async with fleet() as (first, second, _, _):
        device = await register(first)
        await grant(first, device, "org.telegram.messenger")
        headers = {**device.headers, "Content-Type": "application/json"}
        for _ in range(5):  # the breaker's threshold
            failed = await first.post(
                "/v1/commands",
                content=raw,
                headers={**headers, "X-Idempotency-Key": str(uuid.uuid4())},
            )
            assert failed.status_code == 503
        calls = fake_openai.transcriptions.calls
        refused = await second.post(
            "/v1/commands", content=raw, headers={**headers, "X-Idempotency-Key": str(uuid.uuid4())}
        )
    assert calls == 5
    assert refused.status_code == 503
    assert int(refused.headers["retry-after"]) >= 1
    assert fake_openai.transcriptions.calls == calls, "the other process made no call"


async def test_deletion_jobs_run_once_with_a_worker_in_every_process(
    fleet: Fleet, admin_engine: AsyncEngine
) -> None:
    async with fleet(run_worker="true", rate_limit_job_lookup="100000/minute") as (
        first,
        second,
        servers,
        _,
    ):
        devices: list[Device] = [await register(first) for _ in range(6)]
        tasks = []
        for n, device in enumerate(devices):
            queued = await (first if n % 2 else second).delete(
                "/v1/consent/user-data", headers=device.headers
            )
            assert queued.status_code == 202, queued.text
            tasks.append(queued.json()["task_id"])
        async with asyncio.timeout(60):
            while True:
                states = [
                    (await second.get(f"/v1/consent/user-data/jobs/{task}")).json()["status"]
                    for task in tasks
                ]
                if all(state == "completed" for state in states):
                    break
                await asyncio.sleep(0.2)
    # Read once both have stopped: a job's line is written just after its status changes.
    completed = [
        record
        for server in servers
        for record in server.log_records()
        if record.get("msg") == "deletion job completed"
    ]
    assert sorted(record["task_id"] for record in completed) == sorted(tasks)
    assert {record["attempt"] for record in completed} == {1}
    async with admin_engine.connect() as connection:
        attempts = (
            await connection.execute(
                select(DeletionJob.attempts).where(DeletionJob.id.in_(map(uuid.UUID, tasks)))
            )
        ).scalars()
        assert list(attempts) == [1] * len(tasks)


@pytest.mark.parametrize("fleet", ["two-serves"], indirect=True)  # the same flush either way
async def test_telemetry_sent_to_every_process_is_written(
    fleet: Fleet, admin_engine: AsyncEngine
) -> None:
    ids = [uuid.uuid4() for _ in range(40)]
    async with fleet() as (first, second, _, _):
        device = await register(first)
        for n, request_id in enumerate(ids):
            sent = await (first if n % 2 else second).post(
                "/v1/telemetry/events",
                json={
                    "request_id": str(request_id),
                    "outcome": "done",
                    "duration_ms": 420,
                    "stage_timings": {"capture": 120},
                },
                headers=device.headers,
            )
            assert sent.status_code == 202, sent.text
    # The processes stopped (SIGTERM): each flushed its buffer on the way out.
    async with admin_engine.connect() as connection:
        stored = await connection.scalar(
            select(func.count()).select_from(CommandEvent).where(CommandEvent.id.in_(ids))
        )
    assert stored == len(ids)


async def test_the_purges_in_both_processes_remove_each_expired_row_once(
    fleet: Fleet, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)  # in this test's own app, before the fleet starts
    expired = utcnow() - timedelta(hours=1)
    keys = [uuid.uuid4() for _ in range(1200)]  # three batches of 500
    async with admin_engine.begin() as connection:
        await connection.execute(
            insert(IdempotencyRecord),
            [
                {
                    "user_id": device.user_id,
                    "key": key,
                    "body_hash": bytes(32),
                    "state": DONE,
                    "lease_until": expired,
                    "created_at": expired - timedelta(hours=24),
                    "expires_at": expired,
                }
                for key in keys
            ],
        )
    async with fleet(metrics=True, run_worker="true") as (first, _, _, metrics_urls):
        # Each process counts a purge's rows once its batches are done: wait for the counts.
        async with asyncio.timeout(30):
            while True:
                purged = [await _purged(first, url) for url in metrics_urls]
                if sum(purged) >= len(keys):
                    break
                await asyncio.sleep(0.2)
        await asyncio.sleep(1.0)  # a second purge pass (there is none: nothing is left)
        purged = [await _purged(first, url) for url in metrics_urls]
    assert sum(purged) == len(keys), purged
    assert await _count(admin_engine, IdempotencyRecord) == 0


async def _purged(client: httpx.AsyncClient, metrics_url: str) -> float:
    """The idempotency records this process's purges removed, from its /metrics."""
    text = (await client.get(metrics_url)).text
    return sum(
        found.value
        for family in text_string_to_metric_families(text)
        for found in family.samples
        if found.name == "lisan_purged_rows_total"
        and found.labels == {"kind": "idempotency_records"}
    )


async def _count(engine: AsyncEngine, model: type[IdempotencyRecord]) -> int:
    async with engine.connect() as connection:
        return int(await connection.scalar(select(func.count()).select_from(model)) or 0)
