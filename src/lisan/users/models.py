from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import CheckConstraint, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import UtcDateTime


class AccountStatus(StrEnum):
    ACTIVE = "active"
    SUSPENDED = "suspended"
    DELETED = "deleted"  # deletion requested and in progress


class User(Base):
    """One account per app installation (no person-level sign-up)."""

    __tablename__ = "users"
    __table_args__ = (
        CheckConstraint("status IN ('active', 'suspended', 'deleted')", name="status"),
        CheckConstraint("locale IN ('am-ET', 'en-US')", name="locale"),
        CheckConstraint("speech_rate >= 1", name="speech_rate"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    install_id: Mapped[str] = mapped_column(String(128), unique=True)
    status: Mapped[str] = mapped_column(String(16), default=AccountStatus.ACTIVE.value)
    locale: Mapped[str] = mapped_column(String(8))
    speech_rate: Mapped[int] = mapped_column(Integer)
    wake_word: Mapped[str] = mapped_column(String(64))
    registered_at: Mapped[datetime] = mapped_column(UtcDateTime)
    suspended_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
