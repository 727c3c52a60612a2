from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import SequenceKey, UtcDateTime


class AppGrant(Base):
    """One per-app control decision. Append-only: the latest row per package is the state."""

    __tablename__ = "app_grants"
    __table_args__ = (Index("ix_app_grants_user_package", "user_id", "package_name", "id"),)

    # A sequence, not a timestamp, orders the rows: "latest" must not depend on clocks.
    id: Mapped[int] = mapped_column(SequenceKey, primary_key=True, autoincrement=True)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    package_name: Mapped[str] = mapped_column(String(255))
    granted: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
