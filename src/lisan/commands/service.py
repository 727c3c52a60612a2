"""POST /v1/commands as a whole: the steps of `pipeline` in order, and what a command leaves.

    claim -> gate -> keep_audio -> hear -> plan -> validate -> record (confirm inside it)

A step that decides the answer (a refusal) skips the steps after it, up to `record`. A failure
(a provider's 502/503/504, or anything else) gives the key back, so the same key may run again,
and records what it can.

What a command came to is the access log's and `lisan_commands`' to tell (`server.edge`): its
answer's status and reason, or `FAILED` with its `Failure` (what it was answered). Both are
declared to the metrics here, at import.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from dataclasses import dataclass
from enum import StrEnum

from sqlalchemy.exc import IntegrityError

from lisan.billing import service as billing
from lisan.commands import idempotency, pipeline
from lisan.commands.provider_calls import ProviderRefused
from lisan.commands.rules_first import plan_by_rules
from lisan.commands.schemas import CommandResponse, CommandStatus
from lisan.commands.stages import Lap, Stage
from lisan.commands.state import Command, Progress
from lisan.core import metrics
from lisan.core.context import command_outcome_var, provider_caller_var
from lisan.core.errors import CLIENT_CLOSED_REQUEST
from lisan.db.database_trouble import answered_status
from lisan.db.handle import Db
from lisan.db.resources import Resources
from lisan.providers.base import VoiceProvider
from lisan.telemetry import service as telemetry
from lisan.users import service as users

log = logging.getLogger(__name__)

# How long past the provider timeouts a duplicate waits for the first request's answer.
WAIT_MARGIN_S = 5.0

# The status a failed command (answered a 4xx/5xx) is logged and counted under: never an answer's.
FAILED = "ERROR"


class Failure(StrEnum):
    """What a failed command was answered, by the status it got (`failure`)."""

    ACCOUNT_DELETED = "account_deleted"  # 409
    CLIENT_CLOSED = "client_closed"  # 499: answered nothing, its client went away
    PROVIDER_BAD_ANSWER = "provider_bad_answer"  # 502
    CONFIG_ERROR = "config_error"  # 502: the provider refused the request (`ProviderRefused`)
    UNAVAILABLE = "unavailable"  # 503
    PROVIDER_TIMEOUT = "provider_timeout"  # 504
    SERVER_ERROR = "server_error"  # any other


_FAILURES = {
    409: Failure.ACCOUNT_DELETED,
    CLIENT_CLOSED_REQUEST: Failure.CLIENT_CLOSED,
    502: Failure.PROVIDER_BAD_ANSWER,
    503: Failure.UNAVAILABLE,
    504: Failure.PROVIDER_TIMEOUT,
}


def failure(exc: BaseException) -> Failure:
    """What a command that raised `exc` failed with: the status it was answered
    (`db.database_trouble.answered_status`), except a request the provider refused, a 502 of
    the service's configuration rather than of the provider's answer."""
    if isinstance(exc, ProviderRefused):
        return Failure.CONFIG_ERROR
    return _FAILURES.get(answered_status(exc), Failure.SERVER_ERROR)


metrics.COMMAND_STATUSES.declare([*CommandStatus, FAILED])
metrics.COMMAND_REASONS.declare(Failure)

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
    command: Command,
) -> CommandAnswer:
    settings = resources.settings
    bound_s = settings.transcribe_timeout_s + settings.plan_timeout_s + WAIT_MARGIN_S
    claimed = await pipeline.claim(
        resources, command, key, idempotency.body_hash(raw_body), bound_s
    )
    if isinstance(claimed, idempotency.Replay):  # neither runs nor bills again
        return CommandAnswer(claimed.status, claimed.body, replayed=True)
    command, context, owner = claimed.command, claimed.context, claimed.owner
    provider_caller_var.set(str(command.user_id))  # the bulkhead's share is per user
    progress = Progress()
    try:
        progress = await pipeline.gate(resources, command)
        if progress.answer is None:
            await pipeline.keep_audio(resources, command, context)
            progress = await pipeline.hear(resources, provider, command, context, progress)
        if progress.answer is None:
            progress = plan_by_rules(resources.settings, provider, command, context, progress)
            progress = await pipeline.plan(provider, command, context, progress)
            progress = pipeline.validate(command, context, progress)
        response, body = await _record(resources, key, owner, command, progress)
    except BaseException as exc:  # a 502/503/504, a failure, a cancelled request: not final
        command_outcome_var.set((FAILED, failure(exc), progress.planner))
        await asyncio.shield(_record_failure(resources, key, owner, command, progress, exc))
        raise
    # The access log and the metrics say what it came to (lisan.server.access.log_access).
    command_outcome_var.set((response.status.value, response.reprompt_reason, progress.planner))
    return CommandAnswer(200, body, replayed=False, command_id=command.command_id)


async def _record(
    resources: Resources, key: uuid.UUID, owner: uuid.UUID, command: Command, progress: Progress
) -> tuple[CommandResponse, bytes]:
    """One unit of work: the plan checked against the grants as they are now, then the event,
    the bill and the response to replay (the response, and its body). An account removed while
    the command ran is answered as a deleted account is (409), never 500."""

    async def record(db: Db) -> tuple[CommandResponse, bytes]:
        response = await pipeline.confirm(db, command, progress)
        body = response.to_json()
        timed = progress.lap(Lap(Stage.TOTAL, command.started).stop())
        await telemetry.record_command(
            db,
            command_id=command.command_id,
            user_id=command.user_id,
            status=response.status.value,
            server_timings=dict(timed.timings),
        )
        await _settle_bill(db, command, timed)
        await idempotency.finish(
            db, user_id=command.user_id, key=key, owner=owner, status=200, body=body
        )
        return response, body

    try:
        return await resources.database.run(record)
    except IntegrityError:
        if await _account_gone(resources, command):
            raise users.AccountDeleted from None
        raise


async def _record_failure(
    resources: Resources,
    key: uuid.UUID,
    owner: uuid.UUID,
    command: Command,
    progress: Progress,
    failure: BaseException,
) -> None:
    """Give the key back and record the failed command, if its account is still there to
    record it under (a deletion may have removed it meanwhile: then there is nothing to keep)."""
    status_code = answered_status(failure)
    progress = progress.lap(Lap(Stage.TOTAL, command.started).stop())

    async def record_failure(db: Db) -> None:
        await idempotency.release(db, user_id=command.user_id, key=key, owner=owner)
        await telemetry.record_command(
            db,
            command_id=command.command_id,
            user_id=command.user_id,
            status=f"ERROR_{status_code}",
            server_timings=dict(progress.timings),
        )
        if progress.reserved:  # not final: the retry is billed when it completes
            await billing.cancel_bill(db, command.bill_id)

    try:
        await resources.database.run(record_failure)
    except IntegrityError:
        if not await _account_gone(resources, command):
            raise
        log.info("command not recorded: its account was removed while it ran")


async def _account_gone(resources: Resources, command: Command) -> bool:
    """Whether the command's account was removed, or its deletion began, while it ran."""

    async def gone(db: Db) -> bool:
        return not await users.hold_live_account(db, command.user_id)

    return await resources.database.run(gone)


async def _settle_bill(db: Db, command: Command, progress: Progress) -> None:
    """Bill a command that reached the provider once; give back a reservation that did not."""
    if progress.billed:
        await billing.record_billed_command(db, user_id=command.user_id, bill_id=command.bill_id)
    elif progress.reserved:
        await billing.cancel_bill(db, command.bill_id)
