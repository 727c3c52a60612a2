from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from lisan.core.schemas import ResponseModel
from lisan.deletion.models import JobStatus


class DeletionQueued(ResponseModel):
    status: Literal["deletion_queued"] = "deletion_queued"
    task_id: uuid.UUID


class DeletionJobView(ResponseModel):
    """The four fields the task id reveals: progress only, never whose data it was."""

    task_id: uuid.UUID
    status: JobStatus
    created_at: datetime
    completed_at: datetime | None
