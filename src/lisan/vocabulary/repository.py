"""Queries on the vocabulary tables: the terms, and each user's count of them."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Row, bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.db.database import Executor, PerDialect, rowcount, table_of
from lisan.db.lookups import Lookups
from lisan.vocabulary.models import VocabularyCount, VocabularyTerm

_OLDEST_FIRST = (VocabularyTerm.created_at, VocabularyTerm.id)


_COUNTS = table_of(VocabularyCount)
_ENSURE_COUNT_ROW = PerDialect(
    lambda insert: insert(_COUNTS).on_conflict_do_nothing(index_elements=[_COUNTS.c.user_id])
)
# Built once: it runs on every command (the transcriber's bias list).
_DISPLAY_TERMS = (
    select(VocabularyTerm.term)
    .where(VocabularyTerm.user_id == bindparam("user_id"))
    .order_by(*_OLDEST_FIRST)
)


async def insert_count_row_once(session: AsyncSession, user_id: uuid.UUID) -> None:
    await session.execute(_ENSURE_COUNT_ROW.on(session), {"user_id": user_id, "term_count": 0})


async def update_count_take_place(session: AsyncSession, user_id: uuid.UUID, limit: int) -> bool:
    """Count one more term unless the user holds `limit` already. The guarded UPDATE locks the
    user's count row until commit, so racing creates take places one at a time."""
    result = await session.execute(
        update(VocabularyCount)
        .where(VocabularyCount.user_id == user_id, VocabularyCount.term_count < limit)
        .values(term_count=VocabularyCount.term_count + 1)
        .execution_options(synchronize_session=False)
    )
    return bool(rowcount(result))


async def update_count_give_back_place(session: AsyncSession, user_id: uuid.UUID) -> None:
    """Count one term fewer (the caller holds the count row's lock and removed a term)."""
    await session.execute(
        update(VocabularyCount)
        .where(VocabularyCount.user_id == user_id)
        .values(term_count=VocabularyCount.term_count - 1)
        .execution_options(synchronize_session=False)
    )


async def lock_count_row(session: AsyncSession, user_id: uuid.UUID) -> None:
    """Hold the user's count row until commit: every write to a user's vocabulary takes this
    lock first, so racing writes queue up in one order and never deadlock each other."""
    await session.execute(
        select(VocabularyCount.term_count)
        .where(VocabularyCount.user_id == user_id)
        .with_for_update()
    )


async def insert_term(session: AsyncSession, term: VocabularyTerm) -> None:
    session.add(term)
    await session.flush()


async def get_term(
    session: AsyncSession, *, user_id: uuid.UUID, term_id: uuid.UUID
) -> VocabularyTerm | None:
    """The term, when the user owns it."""
    result = await session.execute(
        select(VocabularyTerm).where(
            VocabularyTerm.id == term_id, VocabularyTerm.user_id == user_id
        )
    )
    return result.scalar_one_or_none()


async def update_terms(session: AsyncSession) -> None:
    """Write the changes made to the terms loaded in this session."""
    await session.flush()


async def delete_term(session: AsyncSession, *, user_id: uuid.UUID, term_id: uuid.UUID) -> bool:
    """Delete the term, when the user owns it; False when there was none."""
    result = await session.execute(
        delete(VocabularyTerm)
        .where(VocabularyTerm.id == term_id, VocabularyTerm.user_id == user_id)
        .execution_options(synchronize_session=False)
    )
    return bool(rowcount(result))


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


async def list_terms(lookups: Lookups, user_id: uuid.UUID) -> Sequence[Row[Any]]:
    """(term_id, term, kind, created_at, updated_at) of each term, oldest first."""
    return await lookups.all(_TERM_ROWS, {"user_id": user_id})


async def list_display_terms(db: Executor, user_id: uuid.UUID) -> list[str]:
    result = await db.execute(_DISPLAY_TERMS, {"user_id": user_id})
    return list(result.scalars())
