from __future__ import annotations

from fastapi import APIRouter
from starlette.responses import Response

from lisan.core.http import JsonResponse, json_response
from lisan.deps import CurrentUser, JsonBody, Reads, TermId, UnitOfWork
from lisan.vocabulary import service
from lisan.vocabulary.schemas import TermCreate, TermUpdate

router = APIRouter(tags=["vocabulary"])


@router.get("/v1/vocabulary")
async def list_terms(user: CurrentUser, db: Reads) -> JsonResponse:
    return json_response(await service.list_terms(db, user.user_id))


@router.post("/v1/vocabulary", status_code=201)
async def create_term(
    user: CurrentUser, body: JsonBody[TermCreate], db: UnitOfWork
) -> JsonResponse:
    view = await service.create_term(db, user.user_id, body)
    return json_response(view, status_code=201)


@router.patch("/v1/vocabulary/{termId}")
async def update_term(
    user: CurrentUser, term_id: TermId, body: JsonBody[TermUpdate], db: UnitOfWork
) -> JsonResponse:
    return json_response(
        await service.update_term(db, user_id=user.user_id, term_id=term_id, body=body)
    )


@router.delete("/v1/vocabulary/{termId}", status_code=204)
async def delete_term(user: CurrentUser, term_id: TermId, db: UnitOfWork) -> Response:
    await service.delete_term(db, user_id=user.user_id, term_id=term_id)
    return Response(status_code=204)
