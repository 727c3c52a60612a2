from __future__ import annotations

from fastapi import APIRouter

from lisan.billing import service
from lisan.core.http import JsonResponse, json_response
from lisan.deps import AppSettings, CurrentUser, Reads

router = APIRouter(tags=["billing"])


@router.get("/v1/billing/entitlement")
async def get_entitlement(user: CurrentUser, db: Reads, settings: AppSettings) -> JsonResponse:
    view = await service.current_entitlement(db, user.user_id, settings.billing_enforcement)
    return json_response(view)
