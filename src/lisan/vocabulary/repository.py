"""Queries on the vocabulary tables: the terms, and each user's count of them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, bindparam, delete, select, update

from lisan.db.database import table_of
from lisan.db.handle import Db, PerDialect, as_record, insert_record
from lisan.vocabulary.models import VocabularyCount, VocabularyTerm

_OLDEST_FIRST = (VocabularyTerm.created_at, VocabularyTerm.id)


_COUNTS = table_of(VocabularyCount)
_TERMS = table_of(VocabularyTerm)
_ENSURE_COUNT_ROW = PerDialect(
    lambda insert: insert(_COUNTS).on_conflict_do_nothing(index_elements=[_COUNTS.c.user_id])
)
# Built once: it runs on every command (the transcriber's bias list).
_DISPLAY_TERMS = (
    select(VocabularyTerm.term)
    .where(VocabularyTerm.user_id == bindparam("user_id"))
    .order_by(*_OLDEST_FIRST)
)


async def insert_count_row_once(db: Db, user_id: uuid.UUID) -> None:
    await db.execute(_ENSURE_COUNT_ROW.on(db), {"user_id": user_id, "term_count": 0})


async def update_count_take_place(db: Db, user_id: uuid.UUID, limit: int) -> bool:
    """Count one more term unless the user holds `limit` already. The guarded UPDATE locks the
    user's count row until commit, so racing creates take places one at a time."""
    result = await db.execute(
        update(_COUNTS)
        .where(VocabularyCount.user_id == user_id, VocabularyCount.term_count < limit)
        .values(term_count=VocabularyCount.term_count + 1)
    )
    return bool(result.rowcount)


async def update_count_give_back_place(db: Db, user_id: uuid.UUID) -> None:
    """Count one term fewer (the caller holds the count row's lock and removed a term)."""
    await db.execute(
        update(_COUNTS)
        .where(VocabularyCount.user_id == user_id)
        .values(term_count=VocabularyCount.term_count - 1)
    )


async def lock_count_row(db: Db, user_id: uuid.UUID) -> None:
    """Hold the user's count row until commit: every write to a user's vocabulary takes this
    lock first, so racing writes queue up in one order and never deadlock each other."""
    await db.execute(
        select(VocabularyCount.term_count)
        .where(VocabularyCount.user_id == user_id)
        .with_for_update()
    )


async def insert_term(db: Db, term: VocabularyTerm) -> None:
    await insert_record(db, term)


async def get_term(db: Db, *, user_id: uuid.UUID, term_id: uuid.UUID) -> VocabularyTerm | None:
    """The term, when the user owns it."""
    row = (
        await db.execute(
            select(_TERMS).where(VocabularyTerm.id == term_id, VocabularyTerm.user_id == user_id)
        )
    ).first()
    return None if row is None else as_record(VocabularyTerm, row)


async def update_term(db: Db, term: VocabularyTerm) -> None:
    """Write the term as it stands now (its text, key, kind and time of change)."""
    await db.execute(
        update(_TERMS)
        .where(VocabularyTerm.id == term.id)
        .values(term=term.term, term_key=term.term_key, kind=term.kind, updated_at=term.updated_at)
    )


async def delete_term(db: Db, *, user_id: uuid.UUID, term_id: uuid.UUID) -> bool:
    """Delete the term, when the user owns it; False when there was none."""
    result = await db.execute(
        delete(_TERMS).where(VocabularyTerm.id == term_id, VocabularyTerm.user_id == user_id)
    )
    return bool(result.rowcount)


# Built once: GET /v1/vocabulary, columns only (no ORM instances), outside a unit of work. The
# id is read as `term_id`, the name the list's view gives it.
_TERM_ROWS = (
    select(
        VocabularyTerm.id.label("term_id"),
        VocabularyTerm.term,
        VocabularyTerm.kind,
        VocabularyTerm.created_at,
        VocabularyTerm.updated_at,
    )
    .where(VocabularyTerm.user_id == bindparam("user_id"))
    .order_by(*_OLDEST_FIRST)
)


async def list_terms(db: Db, user_id: uuid.UUID) -> Sequence[Row[Any]]:
    """(term_id, term, kind, created_at, updated_at) of each term, oldest first."""
    rows: Sequence[Row[Any]] = (await db.execute(_TERM_ROWS, {"user_id": user_id})).all()
    return rows


async def list_display_terms(db: Db, user_id: uuid.UUID) -> list[str]:
    result = await db.execute(_DISPLAY_TERMS, {"user_id": user_id})
    return list(result.scalars())
