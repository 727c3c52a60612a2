"""POST /v1/commands as a whole: idempotency around the pipeline, and what a command leaves."""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

from lisan.billing import service as billing
from lisan.commands import idempotency, pipeline
from lisan.commands.pipeline import CommandRun
from lisan.core.database import unit_of_work
from lisan.core.errors import LisanError
from lisan.core.resources import Resources
from lisan.providers.base import VoiceProvider
from lisan.telemetry import service as telemetry

# How long past the provider timeouts a duplicate waits for the first request's answer.
WAIT_MARGIN_S = 5.0


@dataclass(frozen=True, slots=True)
class CommandAnswer:
    status: int
    body: bytes
    replayed: bool


async def execute(
    resources: Resources,
    provider: VoiceProvider,
    key: uuid.UUID,
    raw_body: bytes,
    command: CommandRun,
) -> CommandAnswer:
    settings = resources.settings
    bound = settings.transcribe_timeout_s + settings.plan_timeout_s + WAIT_MARGIN_S
    replay = await idempotency.claim(
        resources.sessions,
        command.user_id,
        key,
        idempotency.body_hash(raw_body),
        wait_s=bound,
        lease_s=bound + WAIT_MARGIN_S,
    )
    if replay is not None:  # neither runs nor bills again
        return CommandAnswer(replay.status, replay.body, replayed=True)
    try:
        response = await pipeline.run(resources, provider, command)
    except LisanError as exc:  # 502/503/504 are not final: the same key may run again
        await asyncio.shield(_record_failure(resources, key, command, exc.status_code))
        raise
    except BaseException:
        await asyncio.shield(idempotency.release(resources.sessions, command.user_id, key))
        raise
    body = response.to_json()
    command.lap("total", command.started)
    async with unit_of_work(resources.sessions) as session:
        await telemetry.record_command(
            session, command.command_id, command.user_id, response.status.value, command.timings
        )
        if command.billed:
            await billing.record_billed_command(session, command.user_id, command.command_id)
        await idempotency.finish(session, command.user_id, key, 200, body)
    return CommandAnswer(200, body, replayed=False)


async def _record_failure(
    resources: Resources, key: uuid.UUID, command: CommandRun, status_code: int
) -> None:
    command.lap("total", command.started)
    await idempotency.release(resources.sessions, command.user_id, key)
    async with unit_of_work(resources.sessions) as session:
        await telemetry.record_command(
            session, command.command_id, command.user_id, f"ERROR_{status_code}", command.timings
        )
