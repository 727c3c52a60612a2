from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import ForeignKey, Index, Integer, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import SequenceKey, UtcDateTime


class Subscription(Base):
    """A subscription row as a billing sync records it. The latest row is the current one."""

    __tablename__ = "subscriptions"
    __table_args__ = (Index("ix_subscriptions_user_id", "user_id", "id"),)

    # A sequence, not a timestamp, orders the rows: "latest" must not depend on clocks.
    id: Mapped[int] = mapped_column(SequenceKey, primary_key=True, autoincrement=True)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(32))  # raw store status
    renews_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    command_quota: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)


class BilledCommand(Base):
    """One billed command. `bill_id` is derived from (user, idempotency key), so a command is
    billed once however often it is retried or replayed, and a client-chosen request id
    cannot merge two commands into one bill."""

    __tablename__ = "billed_commands"
    __table_args__ = (Index("ix_billed_commands_user_billed", "user_id", "billed_at"),)

    bill_id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    billed_at: Mapped[datetime] = mapped_column(UtcDateTime)
