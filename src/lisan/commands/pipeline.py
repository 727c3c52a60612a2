"""One command, from a recording and a screen to a safe answer: the steps in order.

Provider calls happen outside any database transaction. The caller runs two units of work
around them: the idempotency claim, which also reads what the command needs (`read_context`),
and the record, which reads the grants the plan names, `validate`s it, and writes what the
command leaves behind (its event, its bill, its idempotent response).

What goes where: the recording goes to the transcriber with the user's vocabulary terms (and
nowhere else); the transcript, the language and, only when the app in front is granted, its
package and view tree go to the planner. Everything the phone is told to say is the service's
own: a phrase key, or a question composed from the checked plan (`speech`).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from lisan.billing import service as billing
from lisan.commands import speech
from lisan.commands.audio import has_speech, store_audio
from lisan.commands.safety import (
    PlanRejected,
    SafePlan,
    required_packages,
    validate_plan,
)
from lisan.commands.schemas import (
    ActionPlanView,
    ActionStepView,
    CommandRequest,
    CommandResponse,
    CommandStatus,
    ScreenContext,
)
from lisan.commands.viewtree import ViewTree
from lisan.consent import service as consent
from lisan.core.database import Executor, unit_of_work
from lisan.core.errors import BadGateway, GatewayTimeout, ServiceUnavailable
from lisan.core.resources import Resources
from lisan.core.settings import BillingEnforcement
from lisan.grants import service as grants
from lisan.phrases.schemas import PhraseKey
from lisan.providers.base import (
    Expected,
    ProviderBadAnswer,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
    VoiceProvider,
)
from lisan.telemetry import service as telemetry
from lisan.vocabulary import service as vocabulary

log = logging.getLogger(__name__)

T = TypeVar("T")

# Why a planner may say it has no steps (the offline planner says which; a remote one may not).
DECLINE_REASONS = frozenset(
    {"nothing_to_do", "target_not_on_screen", "app_not_granted", "dictation_unsupported"}
)


@dataclass
class CommandRun:
    """One command's inputs, and what it learns on the way."""

    command_id: uuid.UUID
    user_id: uuid.UUID
    bill_id: uuid.UUID  # from (user, idempotency key): one bill per command, whatever its retries
    request: CommandRequest
    pcm: bytes
    started: float = field(default_factory=time.perf_counter)
    timings: dict[str, int] = field(default_factory=dict)
    billed: bool = False  # the provider was called: the command counts against the quota
    reserved: bool = False  # its bill was taken up front (billing enforced)

    def lap(self, stage: str, since: float) -> None:
        self.timings[stage] = round((time.perf_counter() - since) * 1000)


@dataclass(frozen=True, slots=True)
class CommandContext:
    """What a command reads about its user before any provider call."""

    terms: list[str]  # the transcriber's vocabulary bias
    keep_audio: bool  # audio_retention is granted
    apps: list[str]  # the granted packages, as they were before the provider calls
    command_id_taken: bool  # the request id already names another command's event

    def screen(self, sent: ScreenContext) -> Screen | None:
        """The screen a provider may see: only a granted app's; None (hidden) for any other."""
        if sent.current_package not in self.apps:
            return None
        return Screen(sent.current_package, sent.view_tree_summary)


@dataclass(frozen=True, slots=True)
class Planned:
    """The planner's answer, still to be checked against the screen and the user's grants."""

    raw_plan: Any
    transcript_confident: bool  # the transcriber gave a confidence
    since: float  # when validation began


async def read_context(db: Executor, command: CommandRun) -> CommandContext:
    """In the caller's unit of work (the idempotency claim's): no transaction of its own."""
    return CommandContext(
        terms=await vocabulary.terms_for(db, command.user_id),
        keep_audio=await consent.is_granted(db, command.user_id, consent.AUDIO_RETENTION),
        apps=await grants.granted_apps(db, command.user_id),
        command_id_taken=await telemetry.command_id_taken(db, command.command_id, command.user_id),
    )


async def run(
    resources: Resources, provider: VoiceProvider, command: CommandRun, context: CommandContext
) -> CommandResponse | Planned:
    """Up to the planner's answer; a refusal on the way is already the final response."""
    settings = resources.settings
    if settings.billing_enforcement is BillingEnforcement.ENFORCED and not await _entitled(
        resources, command
    ):
        return _refusal(
            command, CommandStatus.REJECTED, "subscription_inactive", PhraseKey.ERR_BILLING
        )
    # In a thread: the voice-activity model costs up to ~30 ms of CPU a second of audio.
    if not await asyncio.to_thread(has_speech, command.pcm):
        # Speech models invent words on silence and noise: no provider call at all.
        # (A reserved bill is cancelled: nothing was called.)
        return _refusal(command, CommandStatus.REPROMPT, "no_speech", PhraseKey.RETRY)
    if context.keep_audio:
        await asyncio.to_thread(
            store_audio,
            settings.storage_dir,
            str(command.user_id),
            str(command.command_id),
            command.pcm,
        )
    language = command.request.locale
    # An ungranted app's screen never leaves the service: the planner learns it is hidden.
    screen = context.screen(command.request.screen_context)
    since = time.perf_counter()
    command.billed = True
    expected = Expected(vocabulary=context.terms, screen=screen, apps=context.apps)
    transcript = await _call(provider.transcribe(command.pcm, language, expected))
    command.lap("transcribe", since)
    if not transcript.text.strip():
        return _refusal(command, CommandStatus.REPROMPT, "empty_transcript", PhraseKey.RETRY)
    if transcript.confidence is not None and transcript.confidence < settings.confidence_threshold:
        return _refusal(command, CommandStatus.REPROMPT, "low_confidence", PhraseKey.RETRY)
    since = time.perf_counter()
    raw_plan = await _call(provider.plan(transcript.text, screen, language, context.apps))
    command.lap("plan", since)
    return Planned(raw_plan, transcript.confidence is not None, time.perf_counter())


async def validate(db: Executor, command: CommandRun, planned: Planned) -> CommandResponse:
    """The safety rules, against the user's grants as they are now: read in the caller's unit
    of work, the one that records the command."""
    raw_plan = planned.raw_plan
    try:
        declined = _declined(raw_plan)
        if declined is not None:
            return _refusal(command, CommandStatus.REJECTED, declined, PhraseKey.ERR_REJECTED)
        screen = command.request.screen_context
        tree = ViewTree(screen.view_tree_summary)
        needed = required_packages(raw_plan, screen.current_package)
        granted = await grants.granted_packages(db, command.user_id, needed)
        try:
            plan = validate_plan(raw_plan, tree, granted, current_package=screen.current_package)
        except PlanRejected as rejected:
            return _refusal(
                command, CommandStatus.REJECTED, rejected.reason, PhraseKey.ERR_REJECTED
            )
        return _answer(command, plan, tree, transcript_confident=planned.transcript_confident)
    finally:
        command.lap("validate", planned.since)


def _declined(raw_plan: object) -> str | None:
    """The reason when the planner answered with no steps (it could not, or would not, do what
    was asked): its own `reason` when it is one of DECLINE_REASONS, else `nothing_to_do`."""
    if not (isinstance(raw_plan, dict) and raw_plan.get("steps") == []):
        return None
    reason = raw_plan.get("reason")
    return reason if reason in DECLINE_REASONS else "nothing_to_do"


async def _entitled(resources: Resources, command: CommandRun) -> bool:
    """Check the subscription and, if it allows a command, take the bill now (race-safe)."""
    async with unit_of_work(resources.sessions) as session:
        allowed = await billing.reserve_command(
            session, command.user_id, command.bill_id, resources.settings.billing_enforcement
        )
    if allowed is None:
        raise ServiceUnavailable("billing status could not be verified")
    command.reserved = allowed
    return allowed


async def _call(awaitable: Awaitable[T]) -> T:
    """A provider call; its failure becomes the client's 502, 503 or 504, never its detail."""
    try:
        return await awaitable
    except ProviderTimeout:
        raise GatewayTimeout from None
    except ProviderUnavailable as exc:
        log.warning("voice provider unavailable", extra={"reason": type(exc).__name__})
        message = exc.public_message or "the voice provider is unavailable; try again shortly"
        raise ServiceUnavailable(message, headers={"Retry-After": str(exc.retry_after_s)}) from None
    except ProviderBadAnswer:
        raise BadGateway from None


def _refusal(
    command: CommandRun, status: CommandStatus, reason: str, speak: PhraseKey
) -> CommandResponse:
    """REJECTED or REPROMPT: a reason and a phrase, never a plan."""
    return CommandResponse(
        command_id=command.command_id, status=status, reprompt_reason=reason, speak_code=speak.value
    )


def _answer(
    command: CommandRun,
    plan: SafePlan,
    tree: ViewTree,
    *,
    transcript_confident: bool,
) -> CommandResponse:
    """ACCEPTED speaks the ACK phrase; CONFIRMATION_REQUIRED a question the service composes
    from the checked plan. The planner's own sentence is never spoken: it read the screen."""
    confirm = plan.requires_confirmation(transcriber_confident=transcript_confident)
    view = ActionPlanView(
        plan_id=uuid.uuid4(),
        package_name=plan.package_name,
        steps=[
            ActionStepView(
                step_id=uuid.uuid4(),
                action_type=step.action_type,
                target_node_id=step.target_node_id,
                payload=step.payload,
                is_destructive=step.is_destructive,
            )
            for step in plan.steps
        ],
        requires_user_confirmation=confirm,
    )
    if not confirm:
        return CommandResponse(
            command_id=command.command_id,
            status=CommandStatus.ACCEPTED,
            action_plan=view,
            speak_code=PhraseKey.ACK.value,
        )
    return CommandResponse(
        command_id=command.command_id,
        status=CommandStatus.CONFIRMATION_REQUIRED,
        action_plan=view,
        speech_response_text=speech.plan_confirmation_text(
            plan, tree, command.request.locale.value
        ),
        speak_code=PhraseKey.CONFIRM.value,
    )
