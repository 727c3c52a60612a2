"""User-data deletion end to end, on SQLite and PostgreSQL: the request marks the account
deleted and queues one job; the worker removes the user's objects and then the user row (every
table cascades); a failing step is retried with backoff, then the job fails and an operator is
alerted; afterwards nothing anywhere names the user, and the install id can register again."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from lisan.app import LisanApp
from lisan.core.settings import Settings
from lisan.deletion.models import JobStatus
from lisan.recordings.store import audio_folder, remove_audio, store_audio
from lisan.worker import Worker
from tests.fixtures.app import client_for
from tests.fixtures.deletion import (
    alert_receiver,
    files_naming,
    job_row,
    make_due,
    rows_naming,
    worker_for,
)
from tests.fixtures.devices import Device, grant, register

DELETE = "/v1/consent/user-data"
TELEGRAM = "org.telegram.messenger"


def jobs_url(task_id: object) -> str:
    return f"/v1/consent/user-data/jobs/{task_id}"


async def a_user_with_data(client: httpx.AsyncClient, settings: Settings) -> Device:
    """A device with a row in every table a user can fill, and recordings on disk."""
    device = await register(client)
    headers = device.headers
    for body in ({"scope": "audio_retention", "granted": True},):
        assert (await client.post("/v1/consent/grants", json=body, headers=headers)).is_success
    await grant(client, device, TELEGRAM)
    term = {"term": "Abebe", "kind": "contact"}
    assert (await client.post("/v1/vocabulary", json=term, headers=headers)).status_code == 201
    event = {"request_id": str(uuid.uuid4()), "outcome": "success", "duration_ms": 900}
    await client.post("/v1/telemetry/events", json=event, headers=headers)
    store_audio(settings.storage_dir, str(device.user_id), str(uuid.uuid4()), b"\0\0" * 1600)
    return device


async def test_the_whole_deletion(client: httpx.AsyncClient, app: LisanApp) -> None:
    settings: Settings = app.services.resources.settings
    device = await a_user_with_data(client, settings)
    assert audio_folder(settings.storage_dir, str(device.user_id)).is_dir()

    queued = await client.delete(DELETE, headers=device.headers)
    assert queued.status_code == 202, queued.text
    assert queued.json()["status"] == "deletion_queued"
    task_id = queued.json()["task_id"]
    again = await client.delete(DELETE, headers=device.headers)  # repeated while in flight
    assert (again.status_code, again.json()["task_id"]) == (202, task_id)
    me = await client.get("/v1/users/me", headers=device.headers)
    assert me.status_code == 409  # every other route of the account

    record = await client.get(jobs_url(task_id))  # no credentials: the task id is enough
    assert record.status_code == 200
    assert record.headers["cache-control"] == "no-store"
    assert set(record.json()) == {"task_id", "status", "created_at", "completed_at"}
    assert (record.json()["status"], record.json()["completed_at"]) == ("queued", None)

    assert await worker_for(app).run_due() == 1

    done = (await client.get(jobs_url(task_id))).json()
    assert done["status"] == "completed"
    assert done["completed_at"] is not None
    engine = app.services.resources.database.engine
    assert await rows_naming(engine, device.user_id) == {}  # no row anywhere names the user
    assert files_naming(settings.storage_dir, device.user_id) == []
    assert await worker_for(app).run_due() == 0  # nothing left to do

    fresh = await client.post("/v1/auth/register-device", json={"install_id": device.install_id})
    assert fresh.status_code == 200, fresh.text  # the install id is a new account now
    newcomer = await register(client)  # and others are unaffected
    assert newcomer.user_id != device.user_id


async def test_two_requests_at_once_queue_one_job(client: httpx.AsyncClient) -> None:
    import asyncio

    device = await register(client)
    answers = await asyncio.gather(*(client.delete(DELETE, headers=device.headers) for _ in "ab"))
    assert {a.status_code for a in answers} == {202}
    assert len({a.json()["task_id"] for a in answers}) == 1


@pytest.mark.parametrize("task_id", ["not-a-uuid", str(uuid.uuid4())])
async def test_an_unknown_task_is_404(client: httpx.AsyncClient, task_id: str) -> None:
    response = await client.get(jobs_url(task_id))
    assert response.status_code == 404
    assert response.json() == {"error": "no such deletion task"}


async def test_job_lookup_is_rate_limited_per_client_ip(
    settings_factory: Callable[..., Settings],
) -> None:
    from asgi_lifespan import LifespanManager

    from lisan.app import create_app

    app = create_app(settings_factory(rate_limit_job_lookup="3/minute"))
    async with LifespanManager(app), client_for(app) as client:
        statuses = [(await client.get(jobs_url(uuid.uuid4()))).status_code for _ in range(4)]
    assert statuses == [404, 404, 404, 429]


async def test_a_storage_failure_is_retried_and_then_succeeds(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    """The storage step fails twice (a real OSError from the file system call's place), then
    works: `retrying` in between, `completed` on the third attempt."""
    settings: Settings = app.services.resources.settings
    device = await a_user_with_data(client, settings)
    task_id = uuid.UUID((await client.delete(DELETE, headers=device.headers)).json()["task_id"])
    calls: list[str] = []

    def flaky(storage_dir: Path, user_id: str) -> None:
        calls.append(user_id)
        if len(calls) < 3:
            raise OSError(5, "Input/output error")
        remove_audio(storage_dir, user_id)

    worker = worker_for(app, remove_objects=flaky)
    engine = app.services.resources.database.engine
    seen = []
    for _ in range(3):
        await make_due(app, task_id)
        assert await worker.run_one()
        seen.append((await job_row(engine, task_id)).status)
    assert seen == [JobStatus.RETRYING, JobStatus.RETRYING, JobStatus.COMPLETED]
    assert (await job_row(engine, task_id)).attempts == 3
    assert await rows_naming(engine, device.user_id) == {}
    assert files_naming(settings.storage_dir, device.user_id) == []


async def test_a_job_that_never_succeeds_fails_and_alerts_an_operator(
    settings_factory: Callable[..., Settings], caplog: pytest.LogCaptureFixture
) -> None:
    from asgi_lifespan import LifespanManager

    from lisan.app import create_app

    def broken(_storage_dir: Path, _user_id: str) -> None:
        raise PermissionError(13, "Permission denied")

    with alert_receiver() as receiver:
        settings = settings_factory(
            deletion_max_attempts=3, deletion_backoff_s=0.01, alert_webhook_url=receiver.url
        )
        app = create_app(settings)
        async with LifespanManager(app), client_for(app) as client:
            device = await register(client)
            answer = await client.delete(DELETE, headers=device.headers)
            task_id = uuid.UUID(answer.json()["task_id"])
            worker = worker_for(app, remove_objects=broken)
            with caplog.at_level(logging.CRITICAL, logger="lisan.deletion.alerts"):
                for _ in range(3):
                    await make_due(app, task_id)
                    assert await worker.run_one()
                record = (await client.get(jobs_url(task_id))).json()
                engine = app.services.resources.database.engine
                assert await worker.run_due() == 0  # a failed job is not tried again; the alert
                assert await worker.send_alerts() == 0  # is sent once
            remaining = await rows_naming(engine, device.user_id)
    assert (record["status"], record["completed_at"]) == ("failed", None)
    assert receiver.alerts == [
        {
            "event": "deletion_job_failed",
            "task_id": str(task_id),
            "attempts": 3,
            "error": "PermissionError (EACCES)",  # its type, never its text
        }
    ]
    assert [r.levelname for r in caplog.records if "deletion job failed" in r.message] == [
        "CRITICAL"
    ]
    assert remaining.get("users.id") == 1  # the data is not yet deleted, as the contract says


async def test_backoff_grows_exponentially_with_jitter(settings: Settings) -> None:
    from lisan.db.store import Database

    database = Database(settings.database_url)
    worker = Worker(settings, database)
    base = settings.deletion_backoff_s
    for attempt in (1, 2, 3, 4):
        waits = {worker.backoff_s(attempt) for _ in range(20)}
        least = base * 2 ** (attempt - 1)
        assert all(least <= wait <= least + base for wait in waits)
        assert len(waits) > 1  # jittered
    await database.close()


async def test_admin_audit_rows_outlive_the_user(client: httpx.AsyncClient, app: LisanApp) -> None:
    """The audit record of what admins did to an account is kept after the account is gone
    (no cascade onto it), and so is the job row, without the user's id."""
    from sqlalchemy import func, select

    from lisan.admin.models import AuditEvent, Permission
    from tests.fixtures.admin import admin_token, bearer

    device = await register(client)
    token = await admin_token(app, Permission.USERS_SUSPEND)
    for action in ("suspend", "reinstate"):
        url = f"/v1/admin/users/{device.user_id}/{action}"
        assert (await client.post(url, headers=bearer(token))).status_code == 200
    task_id = uuid.UUID((await client.delete(DELETE, headers=device.headers)).json()["task_id"])
    assert await worker_for(app).run_due() == 1

    engine = app.services.resources.database.engine
    async with engine.connect() as connection:
        audited = await connection.execute(
            select(func.count()).where(AuditEvent.target == str(device.user_id))
        )
    assert audited.scalar_one() == 2
    job = await job_row(engine, task_id)
    assert (job.status, job.user_id) == (JobStatus.COMPLETED, None)
    assert set(await rows_naming(engine, device.user_id)) == {"admin_audit_events.target"}
