from __future__ import annotations

from datetime import datetime
from typing import Literal

from lisan.core.schemas import ResponseModel

ComponentState = Literal["ok", "unavailable"]


class Health(ResponseModel):
    status: Literal["ok"] = "ok"
    timestamp: datetime
    service: str


class Readiness(ResponseModel):
    status: Literal["ready", "unavailable"]
    database: ComponentState
    redis: ComponentState
