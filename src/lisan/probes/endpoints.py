from __future__ import annotations

from fastapi import APIRouter

from lisan.core.http import AppResources, JsonResponse, json_response
from lisan.probes import service

router = APIRouter(tags=["probes"])


@router.get("/health")
async def get_health() -> JsonResponse:
    return json_response(service.health())


@router.get("/ready")
async def get_ready(resources: AppResources) -> JsonResponse:
    readiness = await service.readiness(resources)
    return json_response(readiness, status_code=200 if readiness.status == "ready" else 503)
