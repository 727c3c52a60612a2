from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import StringConstraints

from lisan.core.schemas import ResponseModel, StrictModel

CONSENT_SCOPE_PATTERN = r"^[a-z0-9_.-]+$"
CONSENT_SCOPE_MAX = 64

ConsentScope = Annotated[
    str,
    StringConstraints(min_length=1, max_length=CONSENT_SCOPE_MAX, pattern=CONSENT_SCOPE_PATTERN),
]


class ConsentGrantRequest(StrictModel):
    scope: ConsentScope
    granted: bool


class ConsentGrantRecorded(ResponseModel):
    status: Literal["recorded"] = "recorded"
    scope: str
    granted: bool


class ConsentState(ResponseModel):
    # `created_at` is "date-time or null": always present, null when the scope has no row.
    scope: str
    granted: bool
    created_at: datetime | None
