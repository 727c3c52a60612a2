"""Queries on deletion jobs. Whether a job (or an alert) is due is asked first with a plain
read, so an idle worker never takes a lock; a claim then takes it in a write transaction: on
PostgreSQL with `FOR UPDATE SKIP LOCKED` (workers never wait on each other's job), on SQLite
inside the write transaction, which already admits one writer at a time across processes."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ColumnElement, Select, and_, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.db.database import dialect_name, rowcount
from lisan.deletion.models import IN_FLIGHT, DeletionJob, JobStatus


async def get_in_flight_job(session: AsyncSession, user_id: uuid.UUID) -> DeletionJob | None:
    found = await session.execute(
        select(DeletionJob).where(DeletionJob.user_id == user_id, DeletionJob.status.in_(IN_FLIGHT))
    )
    return found.scalar_one_or_none()


async def insert_job(session: AsyncSession, job: DeletionJob) -> None:
    session.add(job)
    await session.flush()


async def get_job(session: AsyncSession, task_id: uuid.UUID) -> DeletionJob | None:
    return await session.get(DeletionJob, task_id)


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


async def exists_due_job(session: AsyncSession, now: datetime) -> bool:
    """Whether a job looks due: a plain read, no lock."""
    found = await session.execute(select(DeletionJob.id).where(_due(now)).limit(1))
    return found.first() is not None


async def get_next_due_job(session: AsyncSession, now: datetime) -> DeletionJob | None:
    """The oldest due job, locked for the caller's write transaction."""
    query = select(DeletionJob).where(_due(now)).order_by(DeletionJob.run_after).limit(1)
    return (await session.execute(_skip_locked(session, query))).scalar_one_or_none()


async def update_job_attempt(
    session: AsyncSession, *, task_id: uuid.UUID, attempt: int, values: dict[str, object]
) -> bool:
    """Apply the outcome of an attempt, only if that attempt still holds the job (a worker
    whose lease expired and was overtaken must not overwrite the newer attempt's state)."""
    changed = await session.execute(
        update(DeletionJob)
        .where(
            DeletionJob.id == task_id,
            DeletionJob.attempts == attempt,
            DeletionJob.status == JobStatus.RUNNING,
        )
        .values(**values)
    )
    return bool(rowcount(changed))


async def update_jobs_forget_user(session: AsyncSession, user_id: uuid.UUID) -> None:
    """No job row names the user any more (a failed job of theirs included)."""
    await session.execute(
        update(DeletionJob)
        .where(DeletionJob.user_id == user_id)
        .values(user_id=None)
        .execution_options(synchronize_session=False)
    )


def _alert_due(now: datetime) -> ColumnElement[bool]:
    """Pending, and no sender holds it (none took it, or its sender's lease ran out)."""
    return and_(
        DeletionJob.alert_pending.is_(True),
        or_(DeletionJob.lease_until.is_(None), DeletionJob.lease_until < now),
    )


async def exists_due_alert(session: AsyncSession, now: datetime) -> bool:
    """Whether an operator alert looks due: a plain read, no lock."""
    found = await session.execute(select(DeletionJob.id).where(_alert_due(now)).limit(1))
    return found.first() is not None


async def get_next_due_alert(session: AsyncSession, now: datetime) -> DeletionJob | None:
    """A job whose alert is due, locked for the caller's write transaction."""
    query = select(DeletionJob).where(_alert_due(now)).limit(1)
    return (await session.execute(_skip_locked(session, query))).scalar_one_or_none()


async def update_alert_sent(session: AsyncSession, task_id: uuid.UUID) -> None:
    await session.execute(
        update(DeletionJob)
        .where(DeletionJob.id == task_id)
        .values(alert_pending=False, lease_until=None)
        .execution_options(synchronize_session=False)
    )


def _skip_locked(session: AsyncSession, query: Select[DeletionJob]) -> Select[DeletionJob]:
    if dialect_name(session) == "postgresql":
        return query.with_for_update(skip_locked=True)
    return query


async def count_jobs_by_status(session: AsyncSession) -> dict[str, int]:
    rows = await session.execute(
        select(DeletionJob.status, func.count()).group_by(DeletionJob.status)
    )
    return {status: count for status, count in rows}


async def get_oldest_in_flight_time(session: AsyncSession) -> datetime | None:
    """When the oldest job not yet completed or failed was requested."""
    return await session.scalar(
        select(func.min(DeletionJob.created_at)).where(DeletionJob.status.in_(IN_FLIGHT))
    )
