"""POST /v1/commands as a whole: idempotency around the pipeline, and what a command leaves."""

from __future__ import annotations

import asyncio
import dataclasses
import uuid
from dataclasses import dataclass

from lisan.billing import service as billing
from lisan.commands import idempotency, pipeline
from lisan.commands.pipeline import CommandRun
from lisan.commands.schemas import CommandResponse
from lisan.core.database import Executor, transaction
from lisan.core.errors import LisanError
from lisan.core.resources import Resources
from lisan.providers.base import VoiceProvider
from lisan.telemetry import service as telemetry

# How long past the provider timeouts a duplicate waits for the first request's answer.
WAIT_MARGIN_S = 5.0


BILL_NAMESPACE = uuid.UUID("6c1d3f0e-8a57-4c2e-9d55-1f0b7d2a9e41")


def bill_id_for(user_id: uuid.UUID, key: uuid.UUID) -> uuid.UUID:
    return uuid.uuid5(BILL_NAMESPACE, f"{user_id}:{key}")


@dataclass(frozen=True, slots=True)
class CommandAnswer:
    status: int
    body: bytes
    replayed: bool
    command_id: uuid.UUID | None = None  # the id the command ran under (None on a replay)


async def execute(
    resources: Resources,
    provider: VoiceProvider,
    key: uuid.UUID,
    raw_body: bytes,
    command: CommandRun,
) -> CommandAnswer:
    settings = resources.settings
    bound = settings.transcribe_timeout_s + settings.plan_timeout_s + WAIT_MARGIN_S
    claimed = await idempotency.claim(
        resources.write_engine,
        command.user_id,
        key,
        idempotency.body_hash(raw_body),
        wait_s=bound,
        lease_s=bound + WAIT_MARGIN_S,
        then=lambda connection: pipeline.read_context(connection, command),
    )
    if isinstance(claimed, idempotency.Replay):  # neither runs nor bills again
        return CommandAnswer(claimed.status, claimed.body, replayed=True)
    if claimed.value.command_id_taken:
        # A reused X-Request-ID: this command gets a fresh id of the server's, so the earlier
        # command's event and audio stay as they were.
        command = dataclasses.replace(command, command_id=uuid.uuid4())
    owner = claimed.owner
    try:
        outcome = await pipeline.run(resources, provider, command, claimed.value)
        body = await _record(resources, key, owner, command, outcome)
    except LisanError as exc:  # 502/503/504 are not final: the same key may run again
        await asyncio.shield(_record_failure(resources, key, owner, command, exc.status_code))
        raise
    except BaseException:  # a failure or a cancelled request: not final either
        await asyncio.shield(_record_failure(resources, key, owner, command, 500))
        raise
    return CommandAnswer(200, body, replayed=False, command_id=command.command_id)


async def _record(
    resources: Resources,
    key: uuid.UUID,
    owner: uuid.UUID,
    command: CommandRun,
    outcome: CommandResponse | pipeline.Planned,
) -> bytes:
    """One unit of work: the plan checked against the grants as they are now, then the event,
    the bill and the response to replay. Returns the response's body."""
    async with transaction(resources.write_engine) as connection:
        if isinstance(outcome, pipeline.Planned):
            response = await pipeline.validate(connection, command, outcome)
        else:
            response = outcome
        body = response.to_json()
        command.lap("total", command.started)
        await telemetry.record_command(
            connection,
            command.command_id,
            command.user_id,
            response.status.value,
            command.timings,
        )
        await _settle_bill(connection, command)
        await idempotency.finish(connection, command.user_id, key, owner, 200, body)
    return body


async def _record_failure(
    resources: Resources, key: uuid.UUID, owner: uuid.UUID, command: CommandRun, status_code: int
) -> None:
    command.lap("total", command.started)
    async with transaction(resources.write_engine) as connection:
        await idempotency.release(connection, command.user_id, key, owner)
        await telemetry.record_command(
            connection,
            command.command_id,
            command.user_id,
            f"ERROR_{status_code}",
            command.timings,
        )
        if command.reserved:  # not final: the retry is billed when it completes
            await billing.cancel_bill(connection, command.bill_id)


async def _settle_bill(db: Executor, command: CommandRun) -> None:
    """Bill a command that reached the provider once; give back a reservation that did not."""
    if command.billed:
        await billing.record_billed_command(db, command.user_id, command.bill_id)
    elif command.reserved:
        await billing.cancel_bill(db, command.bill_id)
