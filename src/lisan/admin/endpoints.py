from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from lisan.admin import service
from lisan.admin.service import AdminAction
from lisan.core.http import JsonResponse, json_response
from lisan.deps import AdminCaller, AppResources

router = APIRouter(tags=["admin"])

# Any string: one that is not a known user's UUID is a 404, audited like any other miss.
UserIdPath = Annotated[str, Path(alias="userId")]


@router.get("/v1/admin/users/{userId}")
async def get_user(user_id: UserIdPath, call: AdminCaller, resources: AppResources) -> JsonResponse:
    return json_response(
        await service.perform(resources.database, call, AdminAction.READ_USER, user_id)
    )


@router.post("/v1/admin/users/{userId}/suspend")
async def suspend_user(
    user_id: UserIdPath, call: AdminCaller, resources: AppResources
) -> JsonResponse:
    return json_response(
        await service.perform(resources.database, call, AdminAction.SUSPEND_USER, user_id)
    )


@router.post("/v1/admin/users/{userId}/reinstate")
async def reinstate_user(
    user_id: UserIdPath, call: AdminCaller, resources: AppResources
) -> JsonResponse:
    return json_response(
        await service.perform(resources.database, call, AdminAction.REINSTATE_USER, user_id)
    )
