from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, LargeBinary, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import UtcDateTime

RUNNING, DONE = "running", "done"  # IdempotencyRecord.state


class IdempotencyRecord(Base):
    """One (user, X-Idempotency-Key): the body it was first used with and, once final, the
    response to replay. While `running`, its owner holds it until `lease_until`."""

    __tablename__ = "idempotency_records"
    __table_args__ = (Index("ix_idempotency_records_expires_at", "expires_at"),)

    user_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    body_hash: Mapped[bytes] = mapped_column(LargeBinary(32))
    state: Mapped[str] = mapped_column(String(16))  # running | done
    # The claim's token: only its holder may finish or release a running record.
    owner: Mapped[uuid.UUID | None] = mapped_column(Uuid, nullable=True)
    lease_until: Mapped[datetime] = mapped_column(UtcDateTime)
    response_status: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response_body: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
