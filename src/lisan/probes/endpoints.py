from __future__ import annotations

from fastapi import APIRouter

from lisan.core.http import JsonResponse, json_response
from lisan.deps import Readiness
from lisan.probes import service

router = APIRouter(tags=["probes"])


@router.get("/health")
async def get_health() -> JsonResponse:
    return json_response(service.health())


@router.get("/ready")
async def get_ready(probe: Readiness) -> JsonResponse:
    readiness = await probe.check()
    return json_response(readiness, status_code=200 if readiness.status == "ready" else 503)
