from __future__ import annotations

import uuid

from fastapi import APIRouter, Request
from starlette.responses import Response

from lisan.commands import service
from lisan.commands.audio import decode_pcm
from lisan.commands.schemas import CommandRequest
from lisan.commands.state import Command
from lisan.deps import AppServices, CommandingUser, IdempotencyKey, JsonBody, RawBody

router = APIRouter(tags=["commands"])

COMMAND_PATH = "/v1/commands"
# The contract's command body limit (1 MB: 413 above it), which the request edge holds a
# command's body to while reading it, in place of the JSON routes' own (lisan.server.edge).
COMMAND_BODY_LIMIT = 1024 * 1024


@router.post(COMMAND_PATH)
async def post_command(
    request: Request,
    user: CommandingUser,
    key: IdempotencyKey,
    body: JsonBody[CommandRequest],
    raw: RawBody,  # hashed: a retry under the same key must send the same bytes
    services: AppServices,
) -> Response:
    pcm = decode_pcm(body.audio_base64, body.duration_ms)
    command = Command(
        command_id=uuid.UUID(request.state.request_id),
        user_id=user.user_id,
        bill_id=service.bill_id_for(user.user_id, key),
        request=body,
        pcm=pcm,
    )
    answer = await service.execute(services.resources, services.provider, key, raw, command)
    if answer.command_id is not None:  # a fresh id when the client reused its request id
        request.state.request_id = str(answer.command_id)  # the edge's X-Request-ID says it
    headers = {"Idempotent-Replayed": "true"} if answer.replayed else None
    return Response(
        answer.body, status_code=answer.status, media_type="application/json", headers=headers
    )
