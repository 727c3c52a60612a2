from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request

from lisan.core.http import JsonResponse, json_response
from lisan.core.locale import Locale
from lisan.core.ratelimit import hit_per_client_ip
from lisan.core.resources import Resources
from lisan.phrases import service

router = APIRouter(tags=["phrases"])


async def limit_per_client_ip(request: Request) -> None:
    # A dependency, so every call counts (a malformed one too) before the query is validated.
    resources: Resources = request.app.state.resources
    await hit_per_client_ip(request, resources.settings.rate_limit_user, "phrases-ip")


@router.get("/v1/phrases", dependencies=[Depends(limit_per_client_ip)])
async def get_phrases(
    language: Annotated[Locale, Query()] = service.DEFAULT_LANGUAGE,
) -> JsonResponse:
    return json_response(service.catalog(language))
