from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import StringConstraints

from lisan.core.schemas import ResponseModel, TolerantModel
from lisan.screen.packages import PACKAGE_NAME_PATTERN

PackageName = Annotated[
    str, StringConstraints(min_length=3, max_length=255, pattern=PACKAGE_NAME_PATTERN)
]


class AppGrantRequest(TolerantModel):
    package_name: PackageName
    granted: bool


class AppGrantRecorded(ResponseModel):
    status: Literal["recorded"] = "recorded"
    package_name: str
    granted: bool


class AppGrantState(ResponseModel):
    package_name: str
    granted: bool
    created_at: datetime


class AppGrantList(ResponseModel):
    grants: list[AppGrantState]
