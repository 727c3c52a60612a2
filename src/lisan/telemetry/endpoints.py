from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request

from lisan.auth.dependencies import CurrentUser
from lisan.core.http import JsonResponse, json_response
from lisan.core.schemas import parse_json_body
from lisan.telemetry.schemas import TelemetryAccepted, TelemetryEvent
from lisan.telemetry.writer import TelemetryWriter

router = APIRouter(tags=["telemetry"])

_ACCEPTED = TelemetryAccepted()


async def telemetry_writer(request: Request) -> TelemetryWriter:
    writer: TelemetryWriter = request.app.state.telemetry
    return writer


Writer = Annotated[TelemetryWriter, Depends(telemetry_writer)]


@router.post("/v1/telemetry/events", status_code=202)
async def post_event(request: Request, user: CurrentUser, writer: Writer) -> JsonResponse:
    event = parse_json_body(await request.body(), TelemetryEvent)
    writer.submit(user.user_id, event)  # attributed to the session's user, never the body's
    return json_response(_ACCEPTED, status_code=202)
