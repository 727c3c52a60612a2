from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from lisan.consent import service
from lisan.consent.schemas import (
    CONSENT_SCOPE_MAX,
    CONSENT_SCOPE_PATTERN,
    ConsentGrantRequest,
)
from lisan.core.http import JsonResponse, json_response
from lisan.deps import CurrentUser, JsonBody, ReadUnitOfWork, UnitOfWork

router = APIRouter(tags=["consent"])

ScopeQuery = Annotated[
    str, Query(min_length=1, max_length=CONSENT_SCOPE_MAX, pattern=CONSENT_SCOPE_PATTERN)
]


@router.post("/v1/consent/grants")
async def record_consent(
    user: CurrentUser, body: JsonBody[ConsentGrantRequest], db: UnitOfWork
) -> JsonResponse:
    recorded = await service.record(db, user.user_id, body)
    return json_response(recorded)


@router.get("/v1/consent/grants/current")
async def current_consent(scope: ScopeQuery, user: CurrentUser, db: ReadUnitOfWork) -> JsonResponse:
    state = await service.current(db, user.user_id, scope)
    return json_response(state)
