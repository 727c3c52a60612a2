from __future__ import annotations

import re
import uuid
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from lisan.core.schemas import NotNull, ResponseModel, StrictModel

# The contract sets no upper bound; the database columns do (a PostgreSQL integer). Past it a
# value is refused rather than left to jam the writer.
MAX_MILLISECONDS = 2**31 - 1
MAX_STAGES = 16
# A stage name: short and plain (its bytes sit in the buffer until written, and in a column).
STAGE_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_USER_KEYS = frozenset({"user", "user_id", "userid", "userId"})

Milliseconds = Annotated[int, Field(ge=0, le=MAX_MILLISECONDS)]


class CommandOutcome(StrEnum):
    DONE = "done"
    FAILED = "failed"
    REJECTED = "rejected"
    BLOCKED = "blocked"
    CANCELLED = "cancelled"


class TelemetryEvent(StrictModel):
    request_id: Annotated[uuid.UUID | None, NotNull] = None
    outcome: CommandOutcome
    duration_ms: Milliseconds
    confidence: Annotated[float | None, NotNull, Field(ge=0, le=1, allow_inf_nan=False)] = None
    stage_timings: dict[str, Milliseconds]

    @model_validator(mode="before")
    @classmethod
    def _names_no_user(cls, data: Any) -> Any:
        # Events are attributed to the session's user; a body naming one is refused outright.
        if isinstance(data, dict) and _USER_KEYS & data.keys():
            raise ValueError("a telemetry event must not name a user")
        return data

    @field_validator("stage_timings")
    @classmethod
    def _at_most_16_stages(cls, value: dict[str, int]) -> dict[str, int]:
        if len(value) > MAX_STAGES:
            raise ValueError(f"at most {MAX_STAGES} stages")
        if not all(STAGE_NAME.fullmatch(name) for name in value):
            raise ValueError("a stage name is 1 to 64 letters, digits, '_', '.' or '-'")
        return value


class TelemetryAccepted(ResponseModel):
    status: Literal["buffered"] = "buffered"
