from __future__ import annotations

from fastapi import APIRouter

from lisan.core.http import JsonResponse, json_response
from lisan.deps import CurrentUser, JsonBody, Reads, UnitOfWork
from lisan.grants import service
from lisan.grants.schemas import AppGrantRequest

router = APIRouter(tags=["app-grants"])


@router.post("/v1/app-grants")
async def record_app_grant(
    user: CurrentUser, body: JsonBody[AppGrantRequest], db: UnitOfWork
) -> JsonResponse:
    recorded = await service.record(db, user.user_id, body)
    return json_response(recorded)


@router.get("/v1/app-grants")
async def list_app_grants(user: CurrentUser, db: Reads) -> JsonResponse:
    grants = await service.list_states(db, user.user_id)
    return json_response(grants)
