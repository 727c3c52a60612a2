from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from lisan.core.schemas import ResponseModel
from lisan.users.models import AccountStatus


class AdminUserView(ResponseModel):
    user_id: str = Field(serialization_alias="userId")
    status: AccountStatus
    registered_at: datetime
    suspended_at: datetime | None


class SuspendResult(ResponseModel):
    status: Literal["suspended"] = "suspended"
    user_id: str = Field(serialization_alias="userId")


class ReinstateResult(ResponseModel):
    status: Literal["active"] = "active"
    user_id: str = Field(serialization_alias="userId")
