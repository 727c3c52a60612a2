from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, Index, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.core.database import Base, unique_where
from lisan.core.types import UtcDateTime


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
    account it removes, and its `user_id` is cleared once the removal completed, so nothing
    about the user is left behind."""

    __tablename__ = "deletion_jobs"
    __table_args__ = (
        CheckConstraint(
            "status IN ('queued', 'running', 'retrying', 'completed', 'failed')", name="status"
        ),
        # At most one job in flight per user, enforced by the database itself.
        unique_where("uq_deletion_jobs_user_in_flight", "user_id", _IN_FLIGHT_SQL),
        Index("ix_deletion_jobs_status_run_after", "status", "run_after"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    status: Mapped[str] = mapped_column(String(16))
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    completed_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    run_after: Mapped[datetime] = mapped_column(UtcDateTime)  # not claimed before this
    lease_until: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    last_error: Mapped[str | None] = mapped_column(String(200), nullable=True)
