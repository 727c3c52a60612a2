from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.responses import Response

from lisan.auth import service
from lisan.auth.schemas import DeviceRegistration
from lisan.core.http import NO_STORE, JsonResponse, json_response
from lisan.deps import (
    AppSettings,
    CurrentUser,
    DbSession,
    JsonBody,
    PresentedSession,
    RefreshingUser,
    limit_registrations,
)

router = APIRouter(tags=["auth"])


@router.post("/v1/auth/register-device", dependencies=[Depends(limit_registrations)])
async def register_device(
    body: JsonBody[DeviceRegistration],
    presented: PresentedSession,
    settings: AppSettings,
    session: DbSession,
) -> JsonResponse:
    grant = await service.register_device(session, settings, body, presented)
    return json_response(grant, headers=NO_STORE)


@router.post("/v1/auth/refresh")
async def refresh(user: RefreshingUser, settings: AppSettings, session: DbSession) -> JsonResponse:
    grant = await service.refresh(session, settings, user)
    return json_response(grant, headers=NO_STORE)


@router.post("/v1/auth/logout", status_code=204)
async def logout(user: CurrentUser, session: DbSession) -> Response:
    await service.logout(session, user)
    return Response(status_code=204)
