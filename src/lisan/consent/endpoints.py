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
from lisan.deps import CurrentUser, DbSession, JsonBody, ReadSession

router = APIRouter(tags=["consent"])

ScopeQuery = Annotated[
    str, Query(min_length=1, max_length=CONSENT_SCOPE_MAX, pattern=CONSENT_SCOPE_PATTERN)
]


@router.post("/v1/consent/grants")
async def record_consent(
    user: CurrentUser, body: JsonBody[ConsentGrantRequest], session: DbSession
) -> JsonResponse:
    recorded = await service.record(session, user.user_id, body)
    return json_response(recorded)


@router.get("/v1/consent/grants/current")
async def current_consent(
    scope: ScopeQuery, user: CurrentUser, session: ReadSession
) -> JsonResponse:
    state = await service.current(session, user.user_id, scope)
    return json_response(state)
