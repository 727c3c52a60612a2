"""Queries on deletion jobs. Whether a job (or an alert) is due is asked first with a plain
read, so an idle worker never takes a lock; a claim then takes it in a write transaction: on
PostgreSQL with `FOR UPDATE SKIP LOCKED` (workers never wait on each other's job), on SQLite
inside the write transaction, which already admits one writer at a time across processes."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, func, or_, select, update

from lisan.db.database import table_of
from lisan.db.handle import Db, as_record, insert_record
from lisan.deletion.models import IN_FLIGHT, DeletionJob, JobStatus

_JOBS = table_of(DeletionJob)


async def get_in_flight_job(db: Db, user_id: uuid.UUID) -> DeletionJob | None:
    found = await db.execute(
        select(_JOBS).where(DeletionJob.user_id == user_id, DeletionJob.status.in_(IN_FLIGHT))
    )
    return _job(found.first())


async def insert_job(db: Db, job: DeletionJob) -> None:
    await insert_record(db, job)


async def get_job(db: Db, task_id: uuid.UUID) -> DeletionJob | None:
    return _job((await db.execute(select(_JOBS).where(DeletionJob.id == task_id))).first())


def _job(row: Any | None) -> DeletionJob | None:
    return None if row is None else as_record(DeletionJob, row)


def _due(now: datetime) -> ColumnElement[bool]:
    """Queued or retrying and past its `run_after`, or running under a lease that expired (its
    worker died)."""
    return or_(
        and_(
            DeletionJob.status.in_((JobStatus.QUEUED, JobStatus.RETRYING)),
            DeletionJob.run_after <= now,
        ),
        and_(DeletionJob.status == JobStatus.RUNNING, DeletionJob.lease_until < now),
    )


async def exists_due_job(db: Db, now: datetime) -> bool:
    """Whether a job looks due: a plain read, no lock."""
    found = await db.execute(select(DeletionJob.id).where(_due(now)).limit(1))
    return found.first() is not None


async def get_next_due_job(db: Db, now: datetime) -> DeletionJob | None:
    """The oldest due job, locked for the caller's write transaction."""
    query = select(_JOBS).where(_due(now)).order_by(DeletionJob.run_after).limit(1)
    return _job((await db.execute(_skip_locked(db, query))).first())


async def update_job(db: Db, task_id: uuid.UUID, values: dict[str, object]) -> None:
    """Set these columns of a job the caller holds locked (a claim)."""
    await db.execute(update(_JOBS).where(DeletionJob.id == task_id).values(**values))


async def update_job_attempt(
    db: Db, *, task_id: uuid.UUID, attempt: int, values: dict[str, object]
) -> bool:
    """Apply the outcome of an attempt, only if that attempt still holds the job (a worker
    whose lease expired and was overtaken must not overwrite the newer attempt's state)."""
    changed = await db.execute(
        update(_JOBS)
        .where(
            DeletionJob.id == task_id,
            DeletionJob.attempts == attempt,
            DeletionJob.status == JobStatus.RUNNING,
        )
        .values(**values)
    )
    return bool(changed.rowcount)


async def update_jobs_forget_user(db: Db, user_id: uuid.UUID) -> None:
    """No job row names the user any more (a failed job of theirs included)."""
    await db.execute(update(_JOBS).where(DeletionJob.user_id == user_id).values(user_id=None))


def _alert_due(now: datetime) -> ColumnElement[bool]:
    """Pending, and no sender holds it (none took it, or its sender's lease ran out)."""
    return and_(
        DeletionJob.alert_pending.is_(True),
        or_(DeletionJob.lease_until.is_(None), DeletionJob.lease_until < now),
    )


async def exists_due_alert(db: Db, now: datetime) -> bool:
    """Whether an operator alert looks due: a plain read, no lock."""
    found = await db.execute(select(DeletionJob.id).where(_alert_due(now)).limit(1))
    return found.first() is not None


async def get_next_due_alert(db: Db, now: datetime) -> DeletionJob | None:
    """A job whose alert is due, locked for the caller's write transaction."""
    query = select(_JOBS).where(_alert_due(now)).limit(1)
    return _job((await db.execute(_skip_locked(db, query))).first())


async def update_alert_sent(db: Db, task_id: uuid.UUID) -> None:
    await update_job(db, task_id, {"alert_pending": False, "lease_until": None})


def _skip_locked(db: Db, query: Select[Any]) -> Select[Any]:
    if db.dialect.name == "postgresql":
        return query.with_for_update(skip_locked=True)
    return query


async def count_jobs_by_status(db: Db) -> dict[str, int]:
    rows = await db.execute(select(DeletionJob.status, func.count()).group_by(DeletionJob.status))
    return {status: count for status, count in rows}


async def get_oldest_in_flight_time(db: Db) -> datetime | None:
    """When the oldest job not yet completed or failed was requested."""
    oldest = await db.execute(
        select(func.min(DeletionJob.created_at)).where(DeletionJob.status.in_(IN_FLIGHT))
    )
    found: datetime | None = oldest.scalar_one()
    return found
