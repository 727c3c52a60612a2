"""Queries on deletion jobs. A claim takes one due job with a lease: on PostgreSQL with
`FOR UPDATE SKIP LOCKED` (workers never wait on each other's job), on SQLite inside the
write transaction, which already admits one writer at a time across processes."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta

from sqlalchemy import and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.core.database import dialect_name
from lisan.deletion.models import IN_FLIGHT, DeletionJob, JobStatus


async def in_flight_for(session: AsyncSession, user_id: uuid.UUID) -> DeletionJob | None:
    found = await session.execute(
        select(DeletionJob).where(DeletionJob.user_id == user_id, DeletionJob.status.in_(IN_FLIGHT))
    )
    return found.scalar_one_or_none()


async def add(session: AsyncSession, job: DeletionJob) -> None:
    session.add(job)
    await session.flush()


async def by_id(session: AsyncSession, task_id: uuid.UUID) -> DeletionJob | None:
    return await session.get(DeletionJob, task_id)


async def claim_due(session: AsyncSession, now: datetime, lease: timedelta) -> DeletionJob | None:
    """The oldest due job, leased to the caller and counted as one more attempt: queued or
    retrying and past its `run_after`, or running under a lease that expired (its worker died)."""
    due = or_(
        and_(
            DeletionJob.status.in_((JobStatus.QUEUED, JobStatus.RETRYING)),
            DeletionJob.run_after <= now,
        ),
        and_(DeletionJob.status == JobStatus.RUNNING, DeletionJob.lease_until < now),
    )
    query = select(DeletionJob).where(due).order_by(DeletionJob.run_after).limit(1)
    if dialect_name(session) == "postgresql":
        query = query.with_for_update(skip_locked=True)
    job = (await session.execute(query)).scalar_one_or_none()
    if job is None:
        return None
    job.status = JobStatus.RUNNING
    job.lease_until = now + lease
    job.attempts += 1
    await session.flush()
    return job


async def finish(
    session: AsyncSession, task_id: uuid.UUID, attempt: int, values: dict[str, object]
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
    return bool(getattr(changed, "rowcount", 0))
