from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.responses import Response

from lisan.auth import service
from lisan.auth.schemas import DeviceRegistration
from lisan.core.http import NO_STORE, JsonResponse, json_response
from lisan.deps import (
    AppSettings,
    CurrentUser,
    JsonBody,
    PresentedSession,
    RefreshingUser,
    UnitOfWork,
    limit_registrations,
)

router = APIRouter(tags=["auth"])


@router.post("/v1/auth/register-device", dependencies=[Depends(limit_registrations)])
async def register_device(
    body: JsonBody[DeviceRegistration],
    presented: PresentedSession,
    settings: AppSettings,
    db: UnitOfWork,
) -> JsonResponse:
    grant = await service.register_device(db, settings, body, presented)
    return json_response(grant, headers=NO_STORE)


@router.post("/v1/auth/refresh")
async def refresh(user: RefreshingUser, settings: AppSettings, db: UnitOfWork) -> JsonResponse:
    grant = await service.refresh(db, settings, user)
    return json_response(grant, headers=NO_STORE)


@router.post("/v1/auth/logout", status_code=204)
async def logout(user: CurrentUser, db: UnitOfWork) -> Response:
    await service.logout(db, user)
    return Response(status_code=204)
