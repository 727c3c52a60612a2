from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path

from lisan.core.http import NO_STORE, JsonResponse, json_response
from lisan.deletion import service
from lisan.deps import DeletingUser, ReadUnitOfWork, UnitOfWork, limit_job_lookups

router = APIRouter(tags=["consent"])

TaskIdPath = Annotated[str, Path(alias="taskId")]


@router.delete("/v1/consent/user-data", status_code=202)
async def delete_user_data(user: DeletingUser, db: UnitOfWork) -> JsonResponse:
    queued = await service.request_deletion(db, user.user_id)
    return json_response(queued, status_code=202)


@router.get("/v1/consent/user-data/jobs/{taskId}", dependencies=[Depends(limit_job_lookups)])
async def deletion_job(task_id: TaskIdPath, db: ReadUnitOfWork) -> JsonResponse:
    record = await service.job_record(db, task_id)
    return json_response(record, headers=NO_STORE)
