"""The deletion rules: one job in flight per user, the job record a task id reveals, and the
steps of a job (each safe to repeat: a job may be run again after a crash at any point)."""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError

from lisan.core.errors import NotFound
from lisan.core.ids import path_uuid
from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.deletion import repository
from lisan.deletion.models import DeletionJob, JobStatus
from lisan.deletion.schemas import DeletionJobView, DeletionQueued
from lisan.users import service as users


class TaskNotFound(NotFound):
    default_message = "no such deletion task"


def parse_task_id(task_id: str) -> uuid.UUID:
    return path_uuid(task_id, TaskNotFound())


async def request_deletion(db: Db, user_id: uuid.UUID) -> DeletionQueued:
    """Mark the account deleted and queue its job, in the caller's one transaction; the job
    already in flight when there is one (the database's unique index settles a race)."""
    await users.mark_deleted(db, user_id)
    job = await repository.get_in_flight_job(db, user_id)
    if job is None:
        now = utcnow()
        job = DeletionJob(
            id=uuid.uuid4(),
            user_id=user_id,
            status=JobStatus.QUEUED,
            attempts=0,
            created_at=now,
            run_after=now,
        )
        try:
            async with db.savepoint():
                await repository.insert_job(db, job)
        except IntegrityError:  # a concurrent request queued it first
            job = await repository.get_in_flight_job(db, user_id)
            if job is None:
                raise
    return DeletionQueued(task_id=job.id)


async def job_record(db: Db, task_id: str) -> DeletionJobView:
    job = await repository.get_job(db, parse_task_id(task_id))
    if job is None:
        raise TaskNotFound
    return DeletionJobView(
        task_id=job.id,
        status=JobStatus(job.status),
        created_at=job.created_at,
        completed_at=job.completed_at,
    )
