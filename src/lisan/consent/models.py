from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import SequenceKey, UtcDateTime


class ConsentGrant(Base):
    """One consent decision. Append-only: the current state of a scope is its latest row."""

    __tablename__ = "consent_grants"
    __table_args__ = (Index("ix_consent_grants_user_scope", "user_id", "scope", "id"),)

    # A sequence, not a timestamp, orders the rows: "latest" must not depend on clocks.
    id: Mapped[int] = mapped_column(SequenceKey, primary_key=True, autoincrement=True)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(64))
    granted: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
