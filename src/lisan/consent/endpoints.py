from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from lisan.auth.dependencies import CurrentUser
from lisan.consent import service
from lisan.consent.schemas import (
    CONSENT_SCOPE_MAX,
    CONSENT_SCOPE_PATTERN,
    ConsentGrantRequest,
)
from lisan.core.http import DbSession, JsonResponse, ReadSession, json_response
from lisan.core.schemas import parse_json_body

router = APIRouter(tags=["consent"])

ScopeQuery = Annotated[
    str, Query(min_length=1, max_length=CONSENT_SCOPE_MAX, pattern=CONSENT_SCOPE_PATTERN)
]


@router.post("/v1/consent/grants")
async def record_consent(request: Request, user: CurrentUser, session: DbSession) -> JsonResponse:
    body = parse_json_body(await request.body(), ConsentGrantRequest)
    recorded = await service.record(session, user.user_id, body)
    return json_response(recorded)


@router.get("/v1/consent/grants/current")
async def current_consent(
    scope: ScopeQuery, user: CurrentUser, session: ReadSession
) -> JsonResponse:
    state = await service.current(session, user.user_id, scope)
    return json_response(state)
