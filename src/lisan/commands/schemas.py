from __future__ import annotations

import uuid
from enum import StrEnum
from typing import Annotated

from pydantic import Field, StringConstraints

from lisan.core.locale import Locale
from lisan.core.schemas import NotNull, ResponseModel, TolerantModel
from lisan.providers.base import MAX_DURATION_MS

MIN_DURATION_MS = 400


class CommandStatus(StrEnum):
    ACCEPTED = "ACCEPTED"
    REJECTED = "REJECTED"
    REPROMPT = "REPROMPT"
    CONFIRMATION_REQUIRED = "CONFIRMATION_REQUIRED"


class ScreenContext(TolerantModel):
    current_package: Annotated[str, StringConstraints(max_length=255)]
    view_tree_summary: Annotated[str, StringConstraints(max_length=65_536)]


class CommandRequest(TolerantModel):
    audio_base64: str
    duration_ms: Annotated[int, Field(ge=MIN_DURATION_MS, le=MAX_DURATION_MS)]
    language: Annotated[Locale | None, NotNull] = None
    screen_context: ScreenContext

    @property
    def locale(self) -> Locale:
        return self.language or Locale.AM_ET


class ActionStepView(ResponseModel):
    omit_none = True
    step_id: uuid.UUID
    action_type: str
    target_node_id: str | None = None
    payload: str | None = None
    is_destructive: bool


class ActionPlanView(ResponseModel):
    plan_id: uuid.UUID
    package_name: str
    steps: list[ActionStepView]
    requires_user_confirmation: bool


class CommandResponse(ResponseModel):
    """Optional fields that do not apply are left out (none of them is "or null")."""

    omit_none = True
    command_id: uuid.UUID
    status: CommandStatus
    reprompt_reason: str | None = None
    action_plan: ActionPlanView | None = None
    speech_response_text: str | None = None
    speak_code: str | None = None
