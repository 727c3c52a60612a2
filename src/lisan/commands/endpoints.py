from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from lisan.auth.dependencies import CommandingUser
from lisan.commands import idempotency, service
from lisan.commands.audio import decode_pcm
from lisan.commands.schemas import CommandRequest
from lisan.commands.state import Command
from lisan.core.http import AppResources
from lisan.core.schemas import parse_json_body
from lisan.providers.base import VoiceProvider

router = APIRouter(tags=["commands"])


async def voice_provider(request: Request) -> VoiceProvider:
    provider: VoiceProvider = request.app.state.provider
    return provider


Provider = Annotated[VoiceProvider, Depends(voice_provider)]


@router.post("/v1/commands")
async def post_command(
    request: Request, user: CommandingUser, resources: AppResources, provider: Provider
) -> Response:
    key = idempotency.parse_key(request.headers.get("x-idempotency-key"))
    raw = await request.body()
    body = parse_json_body(raw, CommandRequest)  # model_validate_json: no stdlib json pass
    pcm = decode_pcm(body.audio_base64, body.duration_ms)
    command = Command(
        command_id=uuid.UUID(request.state.request_id),
        user_id=user.user_id,
        bill_id=service.bill_id_for(user.user_id, key),
        request=body,
        pcm=pcm,
    )
    answer = await service.execute(resources, provider, key, raw, command)
    if answer.command_id is not None:  # a fresh id when the client reused its request id
        request.state.request_id = str(answer.command_id)  # the edge's X-Request-ID says it
    headers = {"Idempotent-Replayed": "true"} if answer.replayed else None
    return Response(
        answer.body, status_code=answer.status, media_type="application/json", headers=headers
    )
