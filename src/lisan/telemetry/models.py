from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Float, ForeignKey, Index, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import UtcDateTime


class CommandEvent(Base):
    """One command's record: the server's side (written by the command route under its request
    id) and the phone's side (completed by a telemetry event naming that id). Never holds a
    transcript or audio."""

    __tablename__ = "command_events"
    __table_args__ = (Index("ix_command_events_user_created", "user_id", "created_at"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)  # the request id
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    # Server side (POST /v1/commands).
    status: Mapped[str | None] = mapped_column(String(32), nullable=True)
    server_timings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    # Phone side (POST /v1/telemetry/events).
    outcome: Mapped[str | None] = mapped_column(String(16), nullable=True)
    duration_ms: Mapped[int | None] = mapped_column(Integer, nullable=True)
    confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    client_timings: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    reported_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
