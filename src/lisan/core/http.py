"""HTTP plumbing shared by every domain: the JSON responses its endpoints answer with, and the
status a failure is answered with. The errors themselves are rendered by the server
(`lisan.server.error_handlers`)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

from lisan.core.database_trouble import DATABASE_UNAVAILABLE
from lisan.core.errors import (
    CLIENT_CLOSED_REQUEST,
    InternalError,
    LisanError,
    ServiceUnavailable,
)
from lisan.core.schemas import ResponseModel


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        if isinstance(content, ResponseModel):
            return content.to_json()
        return orjson.dumps(content)


# Responses that carry credentials, or a capability such as a deletion task id, are never cached.
NO_STORE = {"Cache-Control": "no-store"}


def json_response(
    content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None
) -> JsonResponse:
    return JsonResponse(content, status_code=status_code, headers=headers)


def answered_status(failure: BaseException) -> int:
    """The status the server's error handlers (`lisan.server.error_handlers`) answer `failure`
    with, for whoever records a failed request (a command event's `ERROR_<status>`), so the
    record says what the client got. A cancelled request (its client went away) was answered
    nothing: `CLIENT_CLOSED_REQUEST` (499)."""
    if isinstance(failure, LisanError):
        return failure.status_code
    if isinstance(failure, DATABASE_UNAVAILABLE):
        return ServiceUnavailable.status_code
    if isinstance(failure, asyncio.CancelledError):
        return CLIENT_CLOSED_REQUEST
    return InternalError.status_code
