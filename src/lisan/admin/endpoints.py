from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from lisan.admin import service
from lisan.admin.service import AdminAction, AdminCall, AuditContext
from lisan.auth.dependencies import client_ip
from lisan.core.http import DbSession, JsonResponse, json_response
from lisan.core.resources import Resources

router = APIRouter(tags=["admin"])


async def admin_call(request: Request) -> AdminCall:
    resources: Resources = request.app.state.resources
    admin, token_sent = await service.identify(
        resources.engine, request.headers.get("authorization")
    )
    return AdminCall(admin, token_sent, request.state.request_id, client_ip(request))


async def audit_context(request: Request) -> AuditContext:
    resources: Resources = request.app.state.resources
    return AuditContext(
        resources.sessions, resources.rate_limiter, resources.settings.rate_limit_user
    )


Call = Annotated[AdminCall, Depends(admin_call)]
# Any string: one that is not a known user's UUID is a 404, audited like any other miss.
UserIdPath = Annotated[str, Path(alias="userId")]
Audit = Annotated[AuditContext, Depends(audit_context)]


@router.get("/v1/admin/users/{userId}")
async def get_user(
    user_id: UserIdPath, call: Call, audit: Audit, session: DbSession
) -> JsonResponse:
    return json_response(
        await service.perform(session, audit, call, AdminAction.READ_USER, user_id)
    )


@router.post("/v1/admin/users/{userId}/suspend")
async def suspend_user(
    user_id: UserIdPath, call: Call, audit: Audit, session: DbSession
) -> JsonResponse:
    return json_response(
        await service.perform(session, audit, call, AdminAction.SUSPEND_USER, user_id)
    )


@router.post("/v1/admin/users/{userId}/reinstate")
async def reinstate_user(
    user_id: UserIdPath, call: Call, audit: Audit, session: DbSession
) -> JsonResponse:
    return json_response(
        await service.perform(session, audit, call, AdminAction.REINSTATE_USER, user_id)
    )
