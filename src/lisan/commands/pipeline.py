"""The steps of one command, from a recording and a screen to a safe answer. `service.execute`
runs them in order; each takes what the steps before it returned and returns what it learned
(`Progress`, never changed in place):

1. `claim`: the idempotency key, and in the same transaction what the command reads about its
   user (`Context`);
2. `gate`: the subscription (a bill reserved up front when billing is enforced), then whether
   anyone spoke at all;
3. `keep_audio`: the recording, kept only while the account and its consent allow, under a
   hold on the account that a deletion waits for;
4. `hear`: the transcriber, and its doubts (`hearing`: language, no speech, confidence);
5. `plan`: the planner;
6. `validate`, inside `record`'s transaction: the safety rules against the grants as they are
   now, then the event, the bill and the response to replay.

Provider calls happen outside any database transaction. What goes where: the recording goes to
the transcriber with the user's vocabulary terms (and nowhere else); the transcript, the
language and, only when the app in front is granted, its package and view tree go to the
planner. Everything the phone is told to say is the service's own: a phrase key, or a question
composed from the checked plan (`speech`).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lisan.billing import service as billing
from lisan.commands import hearing, idempotency
from lisan.commands.audio import has_speech
from lisan.commands.schemas import (
    CommandRequest,
    CommandResponse,
    CommandStatus,
    ScreenContext,
)
from lisan.commands.validation import refusal
from lisan.consent import service as consent
from lisan.core import metrics
from lisan.core.database import Executor, transaction, unit_of_work
from lisan.core.errors import BadGateway, GatewayTimeout, LisanError, ServiceUnavailable
from lisan.core.resources import Resources
from lisan.core.settings import BillingEnforcement
from lisan.grants import service as grants
from lisan.phrases.schemas import PhraseKey
from lisan.providers.base import (
    Expected,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
    VoiceProvider,
)
from lisan.recordings.store import store_audio
from lisan.telemetry import service as telemetry
from lisan.users import service as users
from lisan.vocabulary import service as vocabulary

log = logging.getLogger(__name__)

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Command:
    """One command's inputs."""

    command_id: uuid.UUID
    user_id: uuid.UUID
    bill_id: uuid.UUID  # from (user, idempotency key): one bill per command, whatever its retries
    request: CommandRequest
    pcm: bytes
    started: float = field(default_factory=time.perf_counter)


@dataclass(frozen=True, slots=True)
class Context:
    """What a command reads about its user before any provider call."""

    terms: list[str]  # the transcriber's vocabulary bias
    keep_audio: bool  # audio_retention is granted
    apps: list[str]  # the granted packages, as they were before the provider calls
    command_id_taken: bool  # the request id already names another command's event

    def screen(self, sent: ScreenContext, provider: VoiceProvider) -> Screen | None:
        """The screen a provider may see: a granted app's; an ungranted app's only when the
        provider keeps it on this machine (marked not granted); else None (hidden)."""
        granted = sent.current_package in self.apps
        if not (granted or provider.keeps_screens_local):
            return None
        return Screen(sent.current_package, sent.view_tree_summary, granted=granted)


@dataclass(frozen=True, slots=True)
class Claimed:
    """The key is this command's to finish or release (`owner`), with what it read."""

    owner: uuid.UUID
    command: Command  # under a fresh id when the request's id was taken
    context: Context


@dataclass(frozen=True, slots=True)
class Progress:
    """What a command has done so far. Each step returns the next one; `answer` set means the
    command is decided and the remaining steps before `record` are skipped."""

    timings: tuple[tuple[str, int], ...] = ()
    reserved: bool = False  # its bill was taken up front (billing enforced)
    billed: bool = False  # the provider was called: the command counts against the quota
    answer: CommandResponse | None = None
    transcript: str | None = None
    confident: bool = False  # the transcriber gave a confidence (and it passed)
    raw_plan: Any = None  # the planner's answer, still to be checked

    def lap(self, stage: str, since: float, **changes: Any) -> Progress:
        """This progress with `stage` timed from `since` to now, and `changes` applied."""
        elapsed = round((time.perf_counter() - since) * 1000)
        return dataclasses.replace(self, timings=(*self.timings, (stage, elapsed)), **changes)

    def decided(self, answer: CommandResponse) -> Progress:
        return dataclasses.replace(self, answer=answer)


# --- 1. claim ------------------------------------------------------------------------------


async def claim(
    resources: Resources, command: Command, key: uuid.UUID, digest: bytes, bound_s: float
) -> idempotency.Replay | Claimed:
    """The stored answer to replay, or the key claimed with what the command reads, in one
    transaction. Waits (up to `bound_s`) while another request holds the key."""
    owner, waiting = uuid.uuid4(), idempotency.Waiting(bound_s)
    lease_s = bound_s + idempotency.LEASE_MARGIN_S
    while True:
        async with transaction(resources.write_engine) as db:
            outcome = await idempotency.try_claim(
                db, user_id=command.user_id, key=key, digest=digest, lease_s=lease_s, owner=owner
            )
            if outcome is idempotency.OWNED:
                context = await _read_context(db, command)
                break
        if isinstance(outcome, idempotency.Replay):
            return outcome
        await waiting.pause()
    if context.command_id_taken:
        # A reused X-Request-ID: this command runs under a fresh id of the server's, so the
        # earlier command's event and audio stay as they were.
        command = dataclasses.replace(command, command_id=uuid.uuid4())
    return Claimed(owner, command, context)


async def _read_context(db: Executor, command: Command) -> Context:
    return Context(
        terms=await vocabulary.terms_for(db, command.user_id),
        keep_audio=await consent.is_granted(db, command.user_id, consent.AUDIO_RETENTION),
        apps=await grants.granted_apps(db, command.user_id),
        command_id_taken=await telemetry.command_id_taken(
            db, command_id=command.command_id, user_id=command.user_id
        ),
    )


# --- 2. gate -------------------------------------------------------------------------------


async def gate(resources: Resources, command: Command) -> Progress:
    """The subscription, then speech presence: what decides before any provider call."""
    progress = Progress()
    if resources.settings.billing_enforcement is BillingEnforcement.ENFORCED:
        allowed = await _reserve_bill(resources, command)
        progress = dataclasses.replace(progress, reserved=allowed)
        if not allowed:
            return progress.decided(
                refusal(
                    command, CommandStatus.REJECTED, "subscription_inactive", PhraseKey.ERR_BILLING
                )
            )
    # In a thread: the voice-activity model costs up to ~30 ms of CPU a second of audio.
    with metrics.timed_stage("speech_presence"):
        spoken = await asyncio.to_thread(has_speech, command.pcm)
    if not spoken:
        # Speech models invent words on silence and noise: no provider call at all (and a
        # reserved bill is given back when the command is recorded).
        return progress.decided(
            refusal(command, CommandStatus.REPROMPT, "no_speech", PhraseKey.RETRY)
        )
    return progress


async def _reserve_bill(resources: Resources, command: Command) -> bool:
    """Check the subscription and, if it allows a command, take the bill now (race-safe)."""
    async with unit_of_work(resources.sessions) as session:
        allowed = await billing.reserve_command(
            session,
            user_id=command.user_id,
            bill_id=command.bill_id,
            enforcement=resources.settings.billing_enforcement,
        )
    if allowed is None:
        raise ServiceUnavailable("billing status could not be verified")
    return allowed


# --- 3. keep_audio -------------------------------------------------------------------------


async def keep_audio(resources: Resources, command: Command, context: Context) -> None:
    """Keep the recording while the account and its consent allow it, as they are now: the
    account is held while the file is written, so a deletion request or job waits for it (and
    then removes it), and a withdrawn consent since the claim keeps nothing. An account whose
    deletion began is answered as such (409), never 500."""
    if not context.keep_audio:
        return
    async with transaction(resources.write_engine) as db:
        if not await users.hold_live_account(db, command.user_id):
            raise users.AccountDeleted
        if await consent.is_granted(db, command.user_id, consent.AUDIO_RETENTION):
            await asyncio.to_thread(
                store_audio,
                resources.settings.storage_dir,
                str(command.user_id),
                str(command.command_id),
                command.pcm,
            )


# --- 4. hear -------------------------------------------------------------------------------


async def hear(
    resources: Resources,
    provider: VoiceProvider,
    command: Command,
    context: Context,
    progress: Progress,
) -> Progress:
    """The transcript, or a REPROMPT when the transcriber doubts it (`hearing.doubt`): none,
    another language, no speech, a loop, or too little confidence."""
    since = time.perf_counter()
    expected = Expected(
        vocabulary=context.terms,
        screen=context.screen(command.request.screen_context, provider),
        apps=context.apps,
    )
    progress = dataclasses.replace(progress, billed=True)
    transcript = await _call(
        "transcribe", provider.transcribe(command.pcm, command.request.locale, expected)
    )
    progress = progress.lap("transcribe", since)
    threshold = resources.settings.confidence_threshold
    reason = hearing.doubt(transcript, command.request.locale, threshold)
    if reason is not None:
        return progress.decided(refusal(command, CommandStatus.REPROMPT, reason, PhraseKey.RETRY))
    return dataclasses.replace(
        progress, transcript=transcript.text, confident=transcript.confidence is not None
    )


# --- 5. plan (6, `validation.validate`, runs as `service` records the command) ------------


async def plan(
    provider: VoiceProvider, command: Command, context: Context, progress: Progress
) -> Progress:
    """The planner's answer to the transcript: a claim still to be checked (`validate`)."""
    since = time.perf_counter()
    # An ungranted app's screen never leaves the machine: a remote planner learns it is hidden.
    screen = context.screen(command.request.screen_context, provider)
    transcript = progress.transcript or ""
    raw_plan = await _call(
        "plan", provider.plan(transcript, screen, command.request.locale, context.apps)
    )
    return progress.lap("plan", since, raw_plan=raw_plan)


_STAGE_OF_CALL = {"transcribe": "transcription", "plan": "planning"}


async def _call(call: str, awaitable: Awaitable[T]) -> T:
    """A provider call, counted by outcome and timed; its failure becomes the client's 502,
    503 or 504, never its detail. A call cut short by anything else (the client went away) is
    timed, not counted: it says nothing of the provider."""
    started = time.perf_counter()
    outcome: str | None = None
    try:
        result = await awaitable
        outcome = "ok"
        return result
    except ProviderError as exc:
        outcome = exc.kind
        raise _client_error(exc) from None
    finally:
        elapsed = time.perf_counter() - started
        if outcome is not None:
            bounded = metrics.bounded(outcome, metrics.PROVIDER_OUTCOMES)
            metrics.PROVIDER_CALL_TOTAL.labels(call, bounded).inc()
        metrics.PROVIDER_DURATION.labels(call).observe(elapsed)
        metrics.COMMAND_STAGE.labels(_STAGE_OF_CALL[call]).observe(elapsed)


def _client_error(failure: ProviderError) -> LisanError:
    """What the client is answered for a provider's failure."""
    if isinstance(failure, ProviderTimeout):
        return GatewayTimeout()
    if isinstance(failure, ProviderUnavailable):
        log.warning(
            "voice provider unavailable",
            extra={"reason": type(failure).__name__, "kind": failure.kind},
        )
        message = failure.public_message or "the voice provider is unavailable; try again shortly"
        return ServiceUnavailable(message, headers={"Retry-After": str(failure.retry_after_s)})
    return BadGateway()
