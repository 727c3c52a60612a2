"""A job's limits: each step is bounded below the lease, and a removal past its bound never
lets the job complete while it may still run; a job whose workers die on every attempt is
`failed` (with its alert) once its attempts are spent, however they died; and the operator
alert survives a worker that dies between the `failed` commit and the send."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager

from lisan.app import LisanApp, create_app
from lisan.core.settings import Settings
from lisan.deletion import alerts
from lisan.deletion.models import JobStatus
from lisan.recordings.store import audio_folder, remove_audio, store_audio
from lisan.worker import Worker
from tests.fixtures.app import client_for
from tests.fixtures.deletion import (
    alert_receiver,
    expire_lease,
    job_row,
    kill_mid_job,
    make_due,
    rows_naming,
    worker_for,
)
from tests.fixtures.devices import register

DELETE = "/v1/consent/user-data"
RELEASE_WAIT_S = 20.0  # far past any bound used here: a stuck removal, until the test ends it


async def queue_deletion(client: httpx.AsyncClient, settings: Settings) -> tuple[uuid.UUID, str]:
    device = await register(client)
    store_audio(settings.storage_dir, str(device.user_id), str(uuid.uuid4()), b"\0\0" * 1600)
    answer = await client.delete(DELETE, headers=device.headers)
    return uuid.UUID(answer.json()["task_id"]), str(device.user_id)


async def test_a_removal_past_its_bound_fails_the_attempt_and_never_completes_the_job(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    settings: Settings = app.services.resources.settings
    task_id, user = await queue_deletion(client, settings)
    released, ended = threading.Event(), threading.Event()
    entered: list[str] = []

    def stuck_until_released(storage_dir: Path, user_id: str) -> None:
        entered.append(user_id)
        if len(entered) == 1:  # the first removal hangs (a storage that does not answer)
            released.wait(RELEASE_WAIT_S)
        remove_audio(storage_dir, user_id)
        ended.set()

    # A 1.5 s lease: each step is bounded at 0.5 s (at 0.1 s, a machine busy with other work
    # once took longer than that for the healthy last attempt, and the job stayed RETRYING).
    worker = worker_for(app, lease_s=1.5, remove_objects=stuck_until_released)
    engine = app.services.resources.database.engine
    try:
        assert await worker.run_one()
        first = await job_row(engine, task_id)
        assert (first.status, first.last_error) == (JobStatus.RETRYING, "TimeoutError")

        await make_due(app, task_id)  # tried again while the first removal is still stuck
        assert await worker.run_one()
        second = await job_row(engine, task_id)
        assert (second.status, second.attempts) == (JobStatus.RETRYING, 2)
        assert entered == [user]  # the second removal waited behind it, and was dropped
        assert audio_folder(settings.storage_dir, user).is_dir()
    finally:
        released.set()
    assert await asyncio.to_thread(ended.wait, RELEASE_WAIT_S)

    await make_due(app, task_id)  # the storage answers again
    assert await worker.run_one()
    assert (await job_row(engine, task_id)).status == JobStatus.COMPLETED
    assert entered == [user, user]
    worker.close()


async def test_a_job_whose_workers_all_die_is_failed_and_alerted_once_its_attempts_are_spent(
    settings_factory: Callable[..., Settings], tmp_path: Path
) -> None:
    """Two real worker processes claim the job in turn and are killed (SIGKILL) in its storage
    step; with two attempts allowed, the next claim fails the job instead of running it."""
    ran: list[str] = []
    with alert_receiver() as receiver:
        settings = settings_factory(deletion_max_attempts=2, alert_webhook_url=receiver.url)
        app = create_app(settings)
        async with LifespanManager(app), client_for(app) as client:
            task_id, user = await queue_deletion(client, settings)
            engine = app.services.resources.database.engine
            for attempt in (1, 2):
                await kill_mid_job(settings, tmp_path / f"inside-{attempt}")
                job = await job_row(engine, task_id)
                assert (job.status, job.attempts) == (JobStatus.RUNNING, attempt)
                await expire_lease(app, task_id)

            worker = worker_for(app, remove_objects=lambda _s, user_id: ran.append(user_id))
            assert await worker.run_due() == 1
            job = await job_row(engine, task_id)
            assert await worker.run_due() == 0  # failed: never claimed again
            remaining = await rows_naming(engine, uuid.UUID(user))
    assert ran == []  # no third attempt
    assert (job.status, job.attempts, job.last_error) == (JobStatus.FAILED, 2, "WorkerLost")
    assert not job.alert_pending
    assert receiver.alerts == [
        {
            "event": "deletion_job_failed",
            "task_id": str(task_id),
            "attempts": 2,
            "error": "WorkerLost",
        }
    ]
    assert remaining.get("users.id") == 1  # the data is not deleted: an operator must act


class Died(BaseException):
    """The worker's process ends here (a crash, a kill): nothing after it runs."""


async def test_the_alert_of_a_failed_job_survives_a_worker_that_dies_before_sending_it(
    settings_factory: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    def broken(_storage_dir: Path, _user_id: str) -> None:
        raise PermissionError(13, "Permission denied")

    async def dies(_settings: Settings, _alert: alerts.Alert) -> bool:
        raise Died

    with alert_receiver() as receiver:
        settings = settings_factory(deletion_max_attempts=1, alert_webhook_url=receiver.url)
        app = create_app(settings)
        async with LifespanManager(app), client_for(app) as client:
            task_id, _ = await queue_deletion(client, settings)
            engine = app.services.resources.database.engine
            with monkeypatch.context() as patch:
                patch.setattr(alerts, "deliver", dies)
                with pytest.raises(Died):  # after the `failed` commit, before the send
                    await worker_for(app, remove_objects=broken).run_due()
            job = await job_row(engine, task_id)
            assert (job.status, job.alert_pending) == (JobStatus.FAILED, True)
            assert receiver.alerts == []

            second = worker_for(app)
            assert await second.run_due() == 0  # the dead worker's lease on the alert holds
            assert receiver.alerts == []
            await expire_lease(app, task_id)  # ALERT_LEASE_S later
            with caplog.at_level(logging.CRITICAL, logger="lisan.deletion.alerts"):
                assert await second.run_due() == 0
            assert await second.send_alerts() == 0  # sent once, then cleared
            assert not (await job_row(engine, task_id)).alert_pending
    assert [alert["task_id"] for alert in receiver.alerts] == [str(task_id)]
    assert [r.levelname for r in caplog.records if "deletion job failed" in r.message] == [
        "CRITICAL"
    ]


async def test_an_alert_the_webhook_could_not_take_is_sent_again_after_its_lease(
    settings_factory: Callable[..., Settings],
) -> None:
    def broken(_storage_dir: Path, _user_id: str) -> None:
        raise PermissionError(13, "Permission denied")

    with alert_receiver() as down:
        unreachable = down.url  # the server is shut down below, before the first send
    with alert_receiver() as receiver:
        settings = settings_factory(deletion_max_attempts=1, alert_webhook_url=unreachable)
        app = create_app(settings)
        async with LifespanManager(app), client_for(app) as client:
            task_id, _ = await queue_deletion(client, settings)
            engine = app.services.resources.database.engine
            assert await worker_for(app, remove_objects=broken).run_due() == 1
            assert (await job_row(engine, task_id)).alert_pending  # not delivered: kept

            await expire_lease(app, task_id)
            resources = app.services.resources
            working = settings.model_copy(update={"alert_webhook_url": receiver.url})
            later = Worker(working, resources.database)
            assert await later.send_alerts() == 1
            assert not (await job_row(engine, task_id)).alert_pending
    assert [alert["task_id"] for alert in receiver.alerts] == [str(task_id)]


async def test_with_no_webhook_the_critical_log_line_is_the_alert(
    client: httpx.AsyncClient, app: LisanApp, caplog: pytest.LogCaptureFixture
) -> None:
    settings: Settings = app.services.resources.settings
    assert settings.alert_webhook_url is None
    task_id, _ = await queue_deletion(client, settings)

    def broken(_storage_dir: Path, _user_id: str) -> None:
        raise PermissionError(13, "Permission denied")

    worker = worker_for(app, remove_objects=broken)
    engine = app.services.resources.database.engine
    with caplog.at_level(logging.CRITICAL, logger="lisan.deletion.alerts"):
        for _ in range(settings.deletion_max_attempts):
            await make_due(app, task_id)
            await worker.run_due()
    assert (await job_row(engine, task_id)).status == JobStatus.FAILED
    assert not (await job_row(engine, task_id)).alert_pending
    critical = [r for r in caplog.records if r.levelname == "CRITICAL"]
    assert [r.getMessage() for r in critical] == [
        "deletion job failed: the user's data is not deleted"
    ]
