"""Several workers, and workers that die: each job is carried out exactly once by two workers
racing over 100 jobs (each on its own engine and connections, as separate processes would be);
a worker process killed with SIGKILL in the middle of a job leaves it to a second worker once
its lease expires; and the purges remove exactly what is past its cut-off."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from lisan.auth.models import DeviceSession
from lisan.commands.models import DONE, IdempotencyRecord
from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.db.handle import insert_record
from lisan.db.store import Database
from lisan.db.types import utcnow
from lisan.deletion import service
from lisan.deletion.models import DeletionJob, JobStatus
from lisan.recordings.store import audio_folder, remove_audio, store_audio
from lisan.users import service as users
from lisan.worker import Worker
from tests.fixtures.deletion import expire_lease, job_row, kill_mid_job, rows_naming, worker_for
from tests.fixtures.devices import register
from tests.fixtures.processes import reap, stop


async def queue_jobs(app: LisanApp, count: int) -> list[uuid.UUID]:
    """`count` accounts, each with its deletion requested (as the route does)."""
    user_ids = []
    async with app.services.resources.database.transaction() as db:
        for _ in range(count):
            user = await users.create_account(db, f"inst-{uuid.uuid4().hex}", Locale.EN_US)
            await service.request_deletion(db, user.id)
            user_ids.append(user.id)
    return user_ids


async def test_two_workers_racing_over_100_jobs_do_each_exactly_once(app: LisanApp) -> None:
    settings: Settings = app.services.resources.settings
    user_ids = await queue_jobs(app, 100)
    removed: Counter[str] = Counter()
    lock = threading.Lock()

    def counting(storage_dir: Path, user_id: str) -> None:
        with lock:
            removed[user_id] += 1
        remove_audio(storage_dir, user_id)

    databases = [Database(settings.database_url) for _ in range(2)]
    workers = [Worker(settings, database, remove_objects=counting) for database in databases]
    done = await asyncio.gather(*(worker.run_due() for worker in workers))
    for database in databases:
        await database.close()

    assert sum(done) == 100
    assert all(count > 0 for count in done), done  # both took part
    assert removed == Counter({str(user_id): 1 for user_id in user_ids})
    engine = app.services.resources.database.engine
    assert await _count(engine, DeletionJob.status == JobStatus.COMPLETED) == 100
    for user_id in user_ids[:5]:
        assert await rows_naming(engine, user_id) == {}


async def test_a_worker_killed_mid_job_leaves_it_to_another(
    client: httpx.AsyncClient, app: LisanApp, tmp_path: Path
) -> None:
    settings: Settings = app.services.resources.settings
    device = await register(client)
    store_audio(settings.storage_dir, str(device.user_id), str(uuid.uuid4()), b"\0\0" * 1600)
    task_id = uuid.UUID(
        (await client.delete("/v1/consent/user-data", headers=device.headers)).json()["task_id"]
    )
    engine = app.services.resources.database.engine
    await kill_mid_job(settings, tmp_path / "inside")
    assert (await job_row(engine, task_id)).status == JobStatus.RUNNING

    second = worker_for(app)
    assert await second.run_due() == 0  # its lease still holds
    await expire_lease(app, task_id)
    assert await second.run_due() == 1
    job = await job_row(engine, task_id)
    assert (job.status, job.attempts) == (JobStatus.COMPLETED, 2)
    assert await rows_naming(engine, device.user_id) == {}
    assert not audio_folder(settings.storage_dir, str(device.user_id)).exists()


async def test_the_purges_remove_only_what_is_past_its_cut_off(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    resources = app.services.resources
    settings: Settings = resources.settings
    device = await register(client)
    now = utcnow()
    grace = timedelta(seconds=settings.refresh_grace_s)
    async with resources.database.transaction() as db:
        for hours in (-48, -25, 1, 23):  # expiry relative to now: two past, two to come
            await insert_record(
                db,
                IdempotencyRecord(
                    user_id=device.user_id,
                    key=uuid.uuid4(),
                    body_hash=b"\0" * 32,
                    state=DONE,
                    lease_until=now,
                    created_at=now - timedelta(hours=24) + timedelta(hours=hours),
                    expires_at=now + timedelta(hours=hours),
                ),
            )
        for expired_ago in (grace + timedelta(days=1), grace + timedelta(minutes=1),
                            grace - timedelta(minutes=1)):  # fmt: skip
            await insert_record(
                db,
                DeviceSession(
                    user_id=device.user_id,
                    install_id=device.install_id,
                    token_hash=uuid.uuid4().bytes * 2,
                    created_at=now - expired_ago - timedelta(days=30),
                    expires_at=now - expired_ago,
                ),
            )
    kept, withdrawn, never = [await register(client) for _ in range(3)]
    for user, answers in ((kept, [True]), (withdrawn, [True, False]), (never, [])):
        for granted in answers:
            body = {"scope": "audio_retention", "granted": granted}
            response = await client.post("/v1/consent/grants", json=body, headers=user.headers)
            assert response.status_code == 200, response.text
        store_audio(settings.storage_dir, str(user.user_id), str(uuid.uuid4()), b"\0\0" * 1600)

    workers = [worker_for(app) for _ in range(2)]
    first, second = await asyncio.gather(*(w.purge() for w in workers))  # at once: safe

    engine = resources.database.engine
    assert first.idempotency_records + second.idempotency_records == 2
    assert await _count(engine, IdempotencyRecord.expires_at > now) == 2
    assert first.sessions + second.sessions == 2
    live_sessions = await _count(engine, DeviceSession.user_id == device.user_id)
    assert live_sessions == 2  # the registration's own, and the one still within its grace
    assert audio_folder(settings.storage_dir, str(kept.user_id)).is_dir()
    for gone in (withdrawn, never):
        assert not audio_folder(settings.storage_dir, str(gone.user_id)).exists()
    assert (await workers[0].purge()).idempotency_records == 0  # nothing left past the cut-off


async def _count(engine: AsyncEngine, where: object) -> int:
    table = where.left.table  # type: ignore[attr-defined]
    async with engine.connect() as connection:
        count: int = (
            await connection.execute(select(func.count()).select_from(table).where(where))  # type: ignore[arg-type]
        ).scalar_one()
    return count


async def test_lisan_worker_runs_jobs_until_it_is_stopped(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    """`lisan worker`, a real process: it carries out a queued job, and SIGTERM stops it."""
    settings: Settings = app.services.resources.settings
    device = await register(client)
    task_id = (await client.delete("/v1/consent/user-data", headers=device.headers)).json()[
        "task_id"
    ]
    env = {
        **os.environ,
        "LISAN_DATABASE_URL": settings.database_url,
        "LISAN_STORAGE_DIR": str(settings.storage_dir),
        "LISAN_LOG_FORMAT": "json",
    }
    lisan = Path(sys.executable).with_name("lisan")
    process = await asyncio.create_subprocess_exec(
        str(lisan), "worker", env=env, stderr=asyncio.subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 30
        while (await client.get(f"/v1/consent/user-data/jobs/{task_id}")).json()[
            "status"
        ] != "completed":
            assert process.returncode is None, "lisan worker exited"
            assert time.monotonic() < deadline, "the job was never completed"
            await asyncio.sleep(0.1)
        await stop(process, signal.SIGTERM)
    finally:
        await reap(process)
    assert process.returncode == 0


async def test_serve_runs_the_worker_in_process(settings_factory: Callable[..., Settings]) -> None:
    from asgi_lifespan import LifespanManager

    from lisan.app import create_app
    from tests.fixtures.app import client_for

    app = create_app(settings_factory(run_worker=True))
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)
        answer = await client.delete("/v1/consent/user-data", headers=device.headers)
        url = f"/v1/consent/user-data/jobs/{answer.json()['task_id']}"
        deadline = time.monotonic() + 10
        while (await client.get(url)).json()["status"] != "completed":
            assert time.monotonic() < deadline, "the in-process worker never ran the job"
            await asyncio.sleep(0.05)
