from __future__ import annotations

from fastapi import APIRouter, Request

from lisan.auth.dependencies import CurrentUser
from lisan.core.http import DbSession, JsonResponse, ReadSession, json_response
from lisan.core.schemas import parse_json_body
from lisan.grants import service
from lisan.grants.schemas import AppGrantRequest

router = APIRouter(tags=["app-grants"])


@router.post("/v1/app-grants")
async def record_app_grant(request: Request, user: CurrentUser, session: DbSession) -> JsonResponse:
    body = parse_json_body(await request.body(), AppGrantRequest)
    recorded = await service.record(session, user.user_id, body)
    return json_response(recorded)


@router.get("/v1/app-grants")
async def list_app_grants(user: CurrentUser, session: ReadSession) -> JsonResponse:
    grants = await service.list_states(session, user.user_id)
    return json_response(grants)
