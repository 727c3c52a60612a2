"""HTTP plumbing shared by every domain: the JSON responses its endpoints answer with. The
status a failure is answered with is `lisan.db.database_trouble.answered_status` (a database's
failure is a 503); the errors themselves are rendered by the server
(`lisan.server.error_handlers`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson
from starlette.responses import Response

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
