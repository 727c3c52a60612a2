from __future__ import annotations

from fastapi import APIRouter

from lisan.core.http import JsonResponse, json_response
from lisan.deps import CurrentUser, JsonBody, Telemetry
from lisan.telemetry.schemas import TelemetryAccepted, TelemetryEvent

router = APIRouter(tags=["telemetry"])

_ACCEPTED = TelemetryAccepted()


@router.post("/v1/telemetry/events", status_code=202)
async def post_event(
    user: CurrentUser, event: JsonBody[TelemetryEvent], writer: Telemetry
) -> JsonResponse:
    writer.submit(user.user_id, event)  # attributed to the session's user, never the body's
    return json_response(_ACCEPTED, status_code=202)
