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
5. `plan`: the rules first, when they know the command (`rules_first`), else the planner;
6. `validate`: the plan rules (`lisan.plans`) against the screen the phone sent and the
   grants `claim` read, outside any transaction, so the rules' CPU never holds a write lock (on
   SQLite, every process's); then `confirm`, inside the transaction `service` records the
   command in, re-reads the grants the plan needs: the same, the answer stands; changed (a
   grant revoked while the providers ran), the rules run again on the grants as they are now.

Each stage is timed one way under its one name (`stages.timed`, `stages.Stage`); what the phone
is told is `answers`'. The gate's one reason of its own is `Gated`; a transcript's are
`hearing.Doubt`, the planner's `Decline` (`lisan.providers.base`), the rules' `Refusal`
(`lisan.plans.safe`).

Provider calls happen outside any database transaction. What goes where: the recording goes to
the transcriber with the user's vocabulary terms (and nowhere else); the transcript, the
language and, only when the app in front is granted, its package and view tree go to the
planner. Everything the phone is told to say is the service's own: a phrase key, or a question
composed from the checked plan (`plans.question`).
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Collection
from enum import StrEnum

from lisan.billing import service as billing
from lisan.commands import hearing, idempotency
from lisan.commands.answers import answer, declined, refusal
from lisan.commands.audio import has_speech
from lisan.commands.provider_calls import call_provider
from lisan.commands.schemas import CommandResponse, CommandStatus
from lisan.commands.stages import Stage, timed
from lisan.commands.state import Claimed, Command, Context, Progress
from lisan.consent import service as consent
from lisan.core import metrics
from lisan.core.errors import ServiceUnavailable
from lisan.core.settings import BillingEnforcement
from lisan.db.handle import Db
from lisan.db.resources import Resources
from lisan.grants import service as grants
from lisan.phrases.schemas import PhraseKey
from lisan.plans.naming import ask_unnamed_steps
from lisan.plans.rules import required_packages, validate_plan
from lisan.plans.safe import PlanRejected, SafePlan
from lisan.providers.base import Expected, ProviderCall, VoiceProvider
from lisan.recordings.store import store_audio
from lisan.screen.viewtree import ViewTree
from lisan.telemetry import service as telemetry
from lisan.users import service as users
from lisan.vocabulary import service as vocabulary


class Gated(StrEnum):
    """Why the gate answers a command before any provider call, beside `Doubt.NO_SPEECH`."""

    SUBSCRIPTION_INACTIVE = "subscription_inactive"


metrics.COMMAND_REASONS.declare(Gated)

# --- 1. claim ------------------------------------------------------------------------------


async def claim(
    resources: Resources, command: Command, key: uuid.UUID, digest: bytes, bound_s: float
) -> idempotency.Replay | Claimed:
    """The stored answer to replay, or the key claimed with what the command reads, in one
    transaction. Waits (up to `bound_s`) while another request holds the key."""
    owner, waiting = uuid.uuid4(), idempotency.Waiting(bound_s)
    lease_s = bound_s + idempotency.LEASE_MARGIN_S

    async def try_claim(db: Db) -> idempotency.Replay | idempotency.Claim | Context:
        outcome = await idempotency.try_claim(
            db, user_id=command.user_id, key=key, digest=digest, lease_s=lease_s, owner=owner
        )
        return await _read_context(db, command) if outcome is idempotency.OWNED else outcome

    while not isinstance(claimed := await resources.database.run(try_claim), Context):
        if isinstance(claimed, idempotency.Replay):
            return claimed
        await waiting.pause()
    context = claimed
    if context.command_id_taken:
        # A reused X-Request-ID: this command runs under a fresh id of the server's, so the
        # earlier command's event and audio stay as they were.
        command = dataclasses.replace(command, command_id=uuid.uuid4())
    return Claimed(owner, command, context)


async def _read_context(db: Db, command: Command) -> Context:
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
                    command.command_id,
                    CommandStatus.REJECTED,
                    Gated.SUBSCRIPTION_INACTIVE,
                    PhraseKey.ERR_BILLING,
                )
            )
    # Off the loop: the voice-activity model's CPU grows with the loud audio it hears.
    with timed(Stage.SPEECH_PRESENCE):
        spoken = await resources.blocking.run(has_speech, command.pcm)
    if not spoken:
        # Speech models invent words on silence and noise: no provider call at all (and a
        # reserved bill is given back when the command is recorded).
        return progress.decided(
            refusal(
                command.command_id, CommandStatus.REPROMPT, hearing.Doubt.NO_SPEECH, PhraseKey.RETRY
            )
        )
    return progress


async def _reserve_bill(resources: Resources, command: Command) -> bool:
    """Check the subscription and, if it allows a command, take the bill now (race-safe)."""
    async with resources.database.transaction() as db:
        allowed = await billing.reserve_command(
            db,
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

    async def keep(db: Db) -> None:
        if not await users.hold_live_account(db, command.user_id):
            raise users.AccountDeleted
        if await consent.is_granted(db, command.user_id, consent.AUDIO_RETENTION):
            await resources.database.blocking(
                store_audio,
                resources.settings.storage_dir,
                str(command.user_id),
                str(command.command_id),
                command.pcm,
            )

    await resources.database.run(keep)


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
    with timed(Stage.TRANSCRIPTION) as lap:
        expected = Expected(
            vocabulary=context.terms,
            screen=context.screen(command.request.screen_context, provider),
            apps=context.apps,
        )
        progress = dataclasses.replace(progress, billed=True)
        transcript = await call_provider(
            ProviderCall.TRANSCRIBE,
            provider.transcribe(command.pcm, command.request.locale, expected),
        )
    progress = progress.lap(lap)
    threshold = resources.settings.confidence_threshold
    reason = hearing.doubt(transcript, command.request.locale, threshold, vocabulary=context.terms)
    if reason is not None:
        return progress.decided(
            refusal(command.command_id, CommandStatus.REPROMPT, reason, PhraseKey.RETRY)
        )
    return dataclasses.replace(
        progress, transcript=transcript.text, confident=transcript.confidence is not None
    )


# --- 5. plan -------------------------------------------------------------------------------


async def plan(
    provider: VoiceProvider, command: Command, context: Context, progress: Progress
) -> Progress:
    """The planner's answer to the transcript: a claim still to be checked (`validate`). None
    asked when the rules planned first (`rules_first`)."""
    if progress.raw_plan is not None:
        return progress
    with timed(Stage.PLANNING) as lap:
        # An ungranted app's screen never leaves the machine: a remote planner learns it is
        # hidden.
        screen = context.screen(command.request.screen_context, provider)
        transcript = progress.transcript or ""
        raw_plan = await call_provider(
            ProviderCall.PLAN,
            provider.plan(transcript, screen, command.request.locale, context.apps),
        )
    remote = not provider.keeps_screens_local
    return progress.lap(lap, raw_plan=raw_plan, planned_remotely=remote)


# --- 6. validate ---------------------------------------------------------------------------


def validate(command: Command, context: Context, progress: Progress) -> Progress:
    """The plan rules' answer, checked outside any transaction against the grants the claim
    read (a decided command skips them), and the progress timed through this stage. No read
    of its own: `confirm` reads the grants again where the answer is recorded, and only that
    read decides."""
    if progress.answer is not None:
        return progress
    with timed(Stage.VALIDATION) as lap:
        screen = command.request.screen_context
        needed = required_packages(progress.raw_plan, screen.current_package)
        granted = frozenset(needed.intersection(context.apps))
        checked = _checked(command, progress, granted)
    return progress.lap(lap, checked=checked, grants_seen=granted)


async def confirm(db: Db, command: Command, progress: Progress) -> CommandResponse:
    """The answer to record, in the caller's unit of work: the grants the plan needs are read
    again, and the rules run again only when they changed since `validate`."""
    if progress.answer is not None:
        return progress.answer
    assert progress.checked is not None, "validate runs before confirm"
    screen = command.request.screen_context
    needed = required_packages(progress.raw_plan, screen.current_package)
    granted = frozenset(await grants.granted_packages(db, command.user_id, needed))
    if granted == progress.grants_seen:
        return progress.checked
    return _checked(command, progress, granted)


def _checked(command: Command, progress: Progress, granted: frozenset[str]) -> CommandResponse:
    screen = command.request.screen_context
    tree = ViewTree(screen.view_tree_summary)
    checked = checked_plan(
        progress.raw_plan,
        tree,
        granted,
        current_package=screen.current_package,
        transcript=progress.transcript or "",
        planned_remotely=progress.planned_remotely,
    )
    if isinstance(checked, str):
        return refusal(command.command_id, CommandStatus.REJECTED, checked, PhraseKey.ERR_REJECTED)
    return answer(
        command.command_id,
        checked,
        tree,
        locale=command.request.locale,
        transcript_confident=progress.confident,
    )


def checked_plan(
    raw_plan: object,
    tree: ViewTree,
    granted: Collection[str],
    *,
    current_package: str,
    transcript: str,
    planned_remotely: bool,
) -> SafePlan | str:
    """The plan rules' verdict on a planner's answer: the checked plan, or why it is refused
    (the planner's own decline, or the rule it broke). A remote planner's unnamed taps are
    asked (`ask_unnamed_steps`); the rules' own plans name what they tap. Pure, so what
    measures the rules on real screens (bench.real_commands) runs this very code."""
    reason = declined(raw_plan)
    if reason is not None:
        return reason
    try:
        safe = validate_plan(raw_plan, tree, granted, current_package=current_package)
    except PlanRejected as rejected:
        return rejected.reason
    if planned_remotely:
        safe = ask_unnamed_steps(safe, tree, transcript)
    return safe
