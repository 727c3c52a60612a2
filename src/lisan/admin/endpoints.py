from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from lisan.admin import service
from lisan.admin.service import AdminAction, AdminCall
from lisan.core.http import AppResources, DbSession, JsonResponse, json_response
from lisan.core.ratelimit import client_ip, shield_credential_lookup
from lisan.core.resources import Resources

router = APIRouter(tags=["admin"])


async def admin_call(request: Request) -> AdminCall:
    resources: Resources = request.app.state.resources
    await shield_credential_lookup(request)
    return await service.admit(
        resources.rate_limiter,
        resources.lookups,
        resources.settings.rate_limit_user,
        request.headers.get("authorization"),
        request.state.request_id,
        client_ip(request),
    )


Call = Annotated[AdminCall, Depends(admin_call)]
# Any string: one that is not a known user's UUID is a 404, audited like any other miss.
UserIdPath = Annotated[str, Path(alias="userId")]


@router.get("/v1/admin/users/{userId}")
async def get_user(
    user_id: UserIdPath, call: Call, resources: AppResources, session: DbSession
) -> JsonResponse:
    return json_response(
        await service.perform(session, resources.sessions, call, AdminAction.READ_USER, user_id)
    )


@router.post("/v1/admin/users/{userId}/suspend")
async def suspend_user(
    user_id: UserIdPath, call: Call, resources: AppResources, session: DbSession
) -> JsonResponse:
    return json_response(
        await service.perform(session, resources.sessions, call, AdminAction.SUSPEND_USER, user_id)
    )


@router.post("/v1/admin/users/{userId}/reinstate")
async def reinstate_user(
    user_id: UserIdPath, call: Call, resources: AppResources, session: DbSession
) -> JsonResponse:
    return json_response(
        await service.perform(
            session, resources.sessions, call, AdminAction.REINSTATE_USER, user_id
        )
    )
