from __future__ import annotations

from fastapi import APIRouter

from lisan.core.http import JsonResponse, json_response
from lisan.deps import CurrentUser, DbSession, JsonBody, Reads
from lisan.grants import service
from lisan.grants.schemas import AppGrantRequest

router = APIRouter(tags=["app-grants"])


@router.post("/v1/app-grants")
async def record_app_grant(
    user: CurrentUser, body: JsonBody[AppGrantRequest], session: DbSession
) -> JsonResponse:
    recorded = await service.record(session, user.user_id, body)
    return json_response(recorded)


@router.get("/v1/app-grants")
async def list_app_grants(user: CurrentUser, lookups: Reads) -> JsonResponse:
    grants = await service.list_states(lookups, user.user_id)
    return json_response(grants)
