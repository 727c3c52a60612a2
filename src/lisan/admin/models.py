from __future__ import annotations

import uuid
from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, Index, LargeBinary, String, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base, unique_where
from lisan.db.types import UtcDateTime


class Permission(StrEnum):
    USERS_READ = "users.read"
    USERS_SUSPEND = "users.suspend"


class AuditOutcome(StrEnum):
    OK = "ok"
    UNCHANGED = "unchanged"
    DENIED = "denied"
    NOT_FOUND = "not_found"
    UNAUTHENTICATED = "unauthenticated"
    CONFLICT = "conflict"
    RATE_LIMITED = "rate_limited"
    ERROR = "error"  # failed unexpectedly (500)


LIVE_CREDENTIAL = "revoked_at IS NULL"


class AdminCredential(Base):
    """An operator's bearer credential, known only by its hash, with named permissions. A name
    belongs to one live credential at a time; revoked ones stay, with the audit rows that
    name them."""

    __tablename__ = "admin_credentials"
    __table_args__ = (unique_where("uq_admin_credentials_live_name", "name", LIVE_CREDENTIAL),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[bytes] = mapped_column(LargeBinary(32), unique=True)
    permissions: Mapped[str] = mapped_column(String(256))  # space-separated Permission values
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)


class AuditEvent(Base):
    """One admin call: who, what, on whom, how it ended. Rows are only ever added."""

    __tablename__ = "admin_audit_events"
    __table_args__ = (Index("ix_admin_audit_events_created_at", "created_at"),)

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    admin_credential_id: Mapped[uuid.UUID | None] = mapped_column(
        Uuid, ForeignKey("admin_credentials.id", ondelete="SET NULL"), nullable=True
    )
    admin_name: Mapped[str | None] = mapped_column(String(64), nullable=True)
    action: Mapped[str] = mapped_column(String(32))
    target: Mapped[str] = mapped_column(String(128))
    outcome: Mapped[str] = mapped_column(String(16))
    # Null only on rows written before the address was recorded.
    client_ip: Mapped[str | None] = mapped_column(String(45), nullable=True)
    request_id: Mapped[str] = mapped_column(String(36))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
