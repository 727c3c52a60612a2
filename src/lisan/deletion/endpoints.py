from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Request

from lisan.auth.dependencies import deleting_user
from lisan.auth.service import Principal
from lisan.core.http import (
    NO_STORE,
    AppResources,
    DbSession,
    JsonResponse,
    ReadSession,
    json_response,
)
from lisan.core.ratelimit import hit_per_client_ip
from lisan.deletion import service

router = APIRouter(tags=["consent"])

TaskIdPath = Annotated[str, Path(alias="taskId")]


@router.delete("/v1/consent/user-data", status_code=202)
async def delete_user_data(
    user: Annotated[Principal, Depends(deleting_user)], session: DbSession
) -> JsonResponse:
    queued = await service.request_deletion(session, user.user_id)
    return json_response(queued, status_code=202)


@router.get("/v1/consent/user-data/jobs/{taskId}")
async def deletion_job(
    task_id: TaskIdPath, request: Request, resources: AppResources, session: ReadSession
) -> JsonResponse:
    await hit_per_client_ip(request, resources.settings.rate_limit_job_lookup, "job_lookup")
    record = await service.job_record(session, task_id)
    return json_response(record, headers=NO_STORE)
