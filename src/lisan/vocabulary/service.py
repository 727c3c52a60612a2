"""Per-user vocabulary terms that bias speech recognition.

Rules: unique per user ignoring case, and at most 500 terms a user, both held by the database
(a unique constraint on the case-folded term; a guarded UPDATE of the user's count row), so
racing requests cannot break them. Terms are never logged, nor echoed in an error message.
"""

from __future__ import annotations

import uuid

from sqlalchemy.exc import IntegrityError

from lisan.core.errors import Conflict, NotFound
from lisan.core.ids import path_uuid
from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.vocabulary import repository
from lisan.vocabulary.models import VocabularyTerm
from lisan.vocabulary.schemas import (
    TermCreate,
    TermList,
    TermUpdate,
    TermView,
    VocabularyKind,
    term_key,
)

VOCABULARY_LIMIT = 500


class TermExists(Conflict):
    default_message = "this term is already in the vocabulary"


class VocabularyFull(Conflict):
    default_message = f"vocabulary full: at most {VOCABULARY_LIMIT} terms"


class TermNotFound(NotFound):
    default_message = "no such vocabulary term"


def parse_term_id(term_id: str) -> uuid.UUID:
    return path_uuid(term_id, TermNotFound())


def _view(term: VocabularyTerm) -> TermView:
    return TermView(
        term_id=term.id,
        term=term.term,
        kind=VocabularyKind(term.kind),
        created_at=term.created_at,
        updated_at=term.updated_at,
    )


async def list_terms(db: Db, user_id: uuid.UUID) -> TermList:
    # The rows are validated in one call, by their columns' names: a view built per row pays
    # pydantic's entry once per term (see docs/benchmarks.md, "Measured choices").
    terms = await repository.list_terms(db, user_id)
    return TermList.model_validate({"terms": terms}, from_attributes=True)


async def terms_for(db: Db, user_id: uuid.UUID) -> list[str]:
    """The user's terms as they wrote them, oldest first: the transcriber's bias list."""
    return await repository.list_display_terms(db, user_id)


async def create_term(db: Db, user_id: uuid.UUID, body: TermCreate) -> TermView:
    await repository.insert_count_row_once(db, user_id)
    if not await repository.update_count_take_place(db, user_id, VOCABULARY_LIMIT):
        raise VocabularyFull
    now = utcnow()
    term = VocabularyTerm(
        id=uuid.uuid4(),
        user_id=user_id,
        term=body.term,
        term_key=term_key(body.term),
        kind=body.kind.value,
        created_at=now,
        updated_at=now,
    )
    try:
        await repository.insert_term(db, term)
    except IntegrityError:  # the same term, maybe from a racing request: the place goes back too
        raise TermExists from None
    return _view(term)


async def update_term(
    db: Db, *, user_id: uuid.UUID, term_id: uuid.UUID, body: TermUpdate
) -> TermView:
    await repository.lock_count_row(db, user_id)
    term = await repository.get_term(db, user_id=user_id, term_id=term_id)
    if term is None:
        raise TermNotFound
    if body.term is not None:
        term.term = body.term
        term.term_key = term_key(body.term)
    if body.kind is not None:
        term.kind = body.kind.value
    term.updated_at = utcnow()
    try:
        await repository.update_term(db, term)
    except IntegrityError:  # renamed onto another of the user's terms
        raise TermExists from None
    return _view(term)


async def delete_term(db: Db, *, user_id: uuid.UUID, term_id: uuid.UUID) -> None:
    # The count row first, as create does: the same lock order for every write.
    await repository.lock_count_row(db, user_id)
    if not await repository.delete_term(db, user_id=user_id, term_id=term_id):
        raise TermNotFound
    await repository.update_count_give_back_place(db, user_id)
