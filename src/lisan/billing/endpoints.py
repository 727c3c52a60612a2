from __future__ import annotations

from fastapi import APIRouter

from lisan.billing import service
from lisan.core.http import JsonResponse, json_response
from lisan.deps import AppResources, CurrentUser

router = APIRouter(tags=["billing"])


@router.get("/v1/billing/entitlement")
async def get_entitlement(user: CurrentUser, resources: AppResources) -> JsonResponse:
    enforcement = resources.settings.billing_enforcement
    view = await service.current_entitlement(resources.database, user.user_id, enforcement)
    return json_response(view)
