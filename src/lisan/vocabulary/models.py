from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import CheckConstraint, ForeignKey, Index, Integer, String, UniqueConstraint, Uuid
from sqlalchemy.orm import Mapped, mapped_column

from lisan.db.database import Base
from lisan.db.types import UtcDateTime


class VocabularyTerm(Base):
    """A word that biases recognition for one user. `term_key` (the case-folded term) makes
    "unique per user ignoring case" a database constraint, not a pre-check."""

    __tablename__ = "vocabulary_terms"
    __table_args__ = (
        UniqueConstraint("user_id", "term_key", name="uq_vocabulary_terms_user_term_key"),
        Index("ix_vocabulary_terms_user_created", "user_id", "created_at"),
        CheckConstraint("kind IN ('contact', 'app', 'custom')", name="kind"),
    )

    id: Mapped[uuid.UUID] = mapped_column(Uuid, primary_key=True, default=uuid.uuid4)
    user_id: Mapped[uuid.UUID] = mapped_column(Uuid, ForeignKey("users.id", ondelete="CASCADE"))
    term: Mapped[str] = mapped_column(String(64))
    term_key: Mapped[str] = mapped_column(String(256))  # casefold may lengthen a term
    kind: Mapped[str] = mapped_column(String(16))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    updated_at: Mapped[datetime] = mapped_column(UtcDateTime)


class VocabularyCount(Base):
    """How many terms a user holds. Raised with a guarded UPDATE (count < limit), so two racing
    creates cannot both take the last place."""

    __tablename__ = "vocabulary_counts"
    __table_args__ = (CheckConstraint("term_count >= 0", name="term_count"),)

    user_id: Mapped[uuid.UUID] = mapped_column(
        Uuid, ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    )
    term_count: Mapped[int] = mapped_column(Integer)
