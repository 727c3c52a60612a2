from __future__ import annotations

from fastapi import APIRouter, Request
from starlette.responses import Response

from lisan.auth import service
from lisan.auth.dependencies import CurrentUser, RefreshingUser, presented_session
from lisan.auth.schemas import DeviceRegistration
from lisan.core.http import NO_STORE, AppResources, DbSession, JsonResponse, json_response
from lisan.core.ratelimit import hit_per_client_ip
from lisan.core.schemas import parse_json_body

router = APIRouter(tags=["auth"])


@router.post("/v1/auth/register-device")
async def register_device(
    request: Request, resources: AppResources, session: DbSession
) -> JsonResponse:
    await hit_per_client_ip(request, resources.settings.rate_limit_register, "register")
    body = parse_json_body(await request.body(), DeviceRegistration)
    presented = await presented_session(request)
    grant = await service.register_device(session, resources.settings, body, presented)
    return json_response(grant, headers=NO_STORE)


@router.post("/v1/auth/refresh")
async def refresh(
    user: RefreshingUser, resources: AppResources, session: DbSession
) -> JsonResponse:
    grant = await service.refresh(session, resources.settings, user)
    return json_response(grant, headers=NO_STORE)


@router.post("/v1/auth/logout", status_code=204)
async def logout(user: CurrentUser, session: DbSession) -> Response:
    await service.logout(session, user)
    return Response(status_code=204)
