from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from lisan.core.http import JsonResponse, json_response
from lisan.core.locale import Locale
from lisan.deps import limit_phrase_lookups
from lisan.phrases import service

router = APIRouter(tags=["phrases"])


@router.get("/v1/phrases", dependencies=[Depends(limit_phrase_lookups)])
async def get_phrases(
    language: Annotated[Locale, Query()] = service.DEFAULT_LANGUAGE,
) -> JsonResponse:
    return json_response(service.catalog(language))
