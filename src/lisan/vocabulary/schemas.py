"""Vocabulary bodies. A term is cleaned while it is parsed, so a service only sees clean terms.

Validation messages say what is wrong, never what was sent: terms must not be echoed.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from datetime import datetime
from enum import StrEnum
from typing import Annotated, Self

from pydantic import AfterValidator, model_validator

from lisan.core.schemas import NotNull, ResponseModel, StrictModel

TERM_MAX_CHARS = 64

# Unicode categories a term may not hold: control characters, and line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})
# Python's whitespace plus U+FEFF, so a clean term always has a character that is not blank
# in the contract's own (ECMAScript) sense of `\s` too.
_EDGE_BLANKS = re.compile(r"^[\s\ufeff]+|[\s\ufeff]+$")


class VocabularyKind(StrEnum):
    CONTACT = "contact"
    APP = "app"
    CUSTOM = "custom"


def clean_term(value: str) -> str:
    """The term as stored: control characters refused, trimmed, NFC-normalised, 1 to 64 chars.
    The bound holds for what was sent too (`openapi.yaml`'s `maxLength: 64` is the raw value's):
    65 characters are refused even when trimming would leave 63."""
    if any(unicodedata.category(char) in _REFUSED_CATEGORIES for char in value):
        raise ValueError("must not contain control characters")
    if len(value) > TERM_MAX_CHARS:
        raise ValueError(f"must have at most {TERM_MAX_CHARS} characters")
    cleaned = _EDGE_BLANKS.sub("", unicodedata.normalize("NFC", value))
    if not 1 <= len(cleaned) <= TERM_MAX_CHARS:
        raise ValueError(f"must have 1 to {TERM_MAX_CHARS} characters once trimmed")
    return cleaned


def term_key(term: str) -> str:
    """What "unique per user ignoring case" compares: the clean term, case-folded."""
    return term.casefold()


Term = Annotated[str, AfterValidator(clean_term)]


class TermCreate(StrictModel):
    term: Term
    kind: VocabularyKind


class TermUpdate(StrictModel):
    term: Annotated[Term | None, NotNull] = None
    kind: Annotated[VocabularyKind | None, NotNull] = None

    @model_validator(mode="after")
    def _names_a_change(self) -> Self:
        if not self.model_fields_set:
            raise ValueError("give at least one of term, kind")
        return self


class TermView(ResponseModel):
    term_id: uuid.UUID
    term: str
    kind: VocabularyKind
    created_at: datetime
    updated_at: datetime


class TermList(ResponseModel):
    terms: list[TermView]
