from __future__ import annotations

from fastapi import APIRouter

from lisan.auth.dependencies import CurrentUser
from lisan.billing import service
from lisan.core.http import AppSettings, JsonResponse, ReadSession, json_response

router = APIRouter(tags=["billing"])


@router.get("/v1/billing/entitlement")
async def get_entitlement(
    user: CurrentUser, session: ReadSession, settings: AppSettings
) -> JsonResponse:
    view = await service.entitlement(session, user.user_id, settings.billing_enforcement)
    return json_response(view)
