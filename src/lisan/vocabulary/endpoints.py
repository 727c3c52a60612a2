from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Request
from starlette.responses import Response

from lisan.auth.dependencies import CurrentUser
from lisan.core.http import DbSession, JsonResponse, ReadSession, json_response
from lisan.core.schemas import parse_json_body
from lisan.vocabulary import service
from lisan.vocabulary.schemas import TermCreate, TermUpdate

router = APIRouter(tags=["vocabulary"])

# Any string: one that is not a UUID is a 404, like an unknown term.
TermIdPath = Annotated[str, Path(alias="termId")]


@router.get("/v1/vocabulary")
async def list_terms(user: CurrentUser, session: ReadSession) -> JsonResponse:
    return json_response(await service.list_terms(session, user.user_id))


@router.post("/v1/vocabulary", status_code=201)
async def create_term(request: Request, user: CurrentUser, session: DbSession) -> JsonResponse:
    body = parse_json_body(await request.body(), TermCreate)
    view = await service.create_term(session, user.user_id, body)
    return json_response(view, status_code=201)


@router.patch("/v1/vocabulary/{termId}")
async def update_term(
    term_id: TermIdPath, request: Request, user: CurrentUser, session: DbSession
) -> JsonResponse:
    term_uuid = service.parse_term_id(term_id)
    body = parse_json_body(await request.body(), TermUpdate)
    return json_response(
        await service.update_term(session, user_id=user.user_id, term_id=term_uuid, body=body)
    )


@router.delete("/v1/vocabulary/{termId}", status_code=204)
async def delete_term(term_id: TermIdPath, user: CurrentUser, session: DbSession) -> Response:
    await service.delete_term(session, user_id=user.user_id, term_id=service.parse_term_id(term_id))
    return Response(status_code=204)
