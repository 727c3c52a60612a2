from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import Boolean, CheckConstraint, Index, Integer, String, Uuid, false
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base, unique_where
from lisan.db.types import UtcDateTime


class JobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    RETRYING = "retrying"
    COMPLETED = "completed"
    FAILED = "failed"


IN_FLIGHT = (JobStatus.QUEUED, JobStatus.RUNNING, JobStatus.RETRYING)
_IN_FLIGHT_SQL = "status IN ('queued', 'running', 'retrying')"


class DeletionJob(Base):
    """One deletion of one user's data. No foreign key to the user: the job outlives the
    account it removes. When a job completes, `user_id` is cleared on it and on every other job
    of that user (a failed one before it), so no job row names a user who is gone; `last_error`
    holds an exception's type, never its text (which may name the user's folder)."""

    __tablename__ = "deletion_jobs"
    __table_args__ = (
        CheckConstraint(
            "status IN ('queued', 'running', 'retrying', 'completed', 'failed')", name="status"
        ),
        # At most one job in flight per user, enforced by the database itself.
        unique_where("uq_deletion_jobs_user_in_flight", "user_id", _IN_FLIGHT_SQL),
        Index("ix_deletion_jobs_status_run_after", "status", "run_after"),
        # The alert outbox is polled every second: a seek to the few rows that are pending.
        Index("ix_deletion_jobs_alert_pending", "alert_pending"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    run_after: Mapped[datetime] = mapped_column(UtcDateTime)  # not claimed before this
    # Whoever works on the row holds it until then: the attempt while `running`; the sender
    # of the operator alert once `failed`.
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # The operator alert of a failed job is still to be sent (an outbox: set in the transaction
    # that marks the job failed, cleared once the alert went out).
    alert_pending: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
