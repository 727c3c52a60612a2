"""No job row names a user who is gone: a job that failed (its error text naming the user's
folder, as an OSError's does) keeps neither the user's id once a later job deleted the account,
nor any text that names the user, from the start."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import httpx
from asgi_lifespan import LifespanManager
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import create_app
from lisan.core.settings import Settings
from lisan.deletion.models import DeletionJob, JobStatus
from lisan.recordings.store import audio_folder, store_audio
from tests.fixtures.app import client_for
from tests.fixtures.deletion import alert_receiver, job_row, rows_naming, worker_for
from tests.fixtures.devices import register

DELETE = "/v1/consent/user-data"


async def test_a_failed_job_names_nobody_once_a_later_job_deleted_the_account(
    settings_factory: Callable[..., Settings],
) -> None:
    def refused(storage_dir: Path, user_id: str) -> None:  # the error names the folder
        raise PermissionError(13, "Permission denied", str(audio_folder(storage_dir, user_id)))

    with alert_receiver() as receiver:
        settings = settings_factory(deletion_max_attempts=1, alert_webhook_url=receiver.url)
        app = create_app(settings)
        async with LifespanManager(app), client_for(app) as client:
            device = await register(client)
            user = str(device.user_id)
            store_audio(settings.storage_dir, user, str(uuid.uuid4()), b"\0\0" * 1600)
            first = await _request_deletion(client, device.headers)
            assert await worker_for(app, remove_objects=refused).run_due() == 1
            engine = app.services.resources.database.engine
            failed = await job_row(engine, first)
            assert failed.status == JobStatus.FAILED
            assert user not in (failed.last_error or "")  # not even before the account goes
            assert failed.last_error == "PermissionError (EACCES)"

            second = await _request_deletion(client, device.headers)  # asked again: a new job
            assert second != first
            assert await worker_for(app).run_due() == 1
            assert (await job_row(engine, second)).status == JobStatus.COMPLETED

            assert await rows_naming(engine, device.user_id) == {}  # the failed job's id too
            assert await _jobs_whose_text_names(engine, user) == 0
            assert (await job_row(engine, first)).status == JobStatus.FAILED  # its record stays
    assert all(user not in str(alert) for alert in receiver.alerts)
    assert [alert["task_id"] for alert in receiver.alerts] == [str(first)]


async def _request_deletion(client: httpx.AsyncClient, headers: dict[str, str]) -> uuid.UUID:
    answer = await client.delete(DELETE, headers=headers)
    assert answer.status_code == 202, answer.text
    return uuid.UUID(answer.json()["task_id"])


async def _jobs_whose_text_names(engine: AsyncEngine, user: str) -> int:
    async with engine.connect() as connection:
        found = await connection.execute(
            select(func.count()).where(DeletionJob.last_error.contains(user))
        )
    count: int = found.scalar_one()
    return count
