"""Step 6 of a command (`pipeline`): the planner's claim checked by the safety rules against
the screen the phone sent and the grants as they are now, and the answer the phone gets."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from lisan.commands.schemas import ActionPlanView, ActionStepView, CommandResponse, CommandStatus
from lisan.core.database import Executor
from lisan.grants import service as grants
from lisan.phrases.schemas import PhraseKey
from lisan.plans import question
from lisan.plans.rules import PlanRejected, SafePlan, required_packages, validate_plan
from lisan.screen.viewtree import ViewTree

if TYPE_CHECKING:
    from lisan.commands.pipeline import Command, Progress

# Why a planner may say it has no steps (the offline planner says which; a remote one may not).
DECLINE_REASONS = frozenset(
    {"nothing_to_do", "target_not_on_screen", "app_not_granted", "dictation_unsupported"}
)


async def validate(db: Executor, command: Command, progress: Progress) -> CommandResponse:
    """The safety rules, against the user's grants as they are now: read in the caller's unit
    of work, the one that records the command."""
    if progress.answer is not None:
        return progress.answer
    raw_plan = progress.raw_plan
    declined = _declined(raw_plan)
    if declined is not None:
        return refusal(command, CommandStatus.REJECTED, declined, PhraseKey.ERR_REJECTED)
    screen = command.request.screen_context
    tree = ViewTree(screen.view_tree_summary)
    needed = required_packages(raw_plan, screen.current_package)
    granted = await grants.granted_packages(db, command.user_id, needed)
    try:
        safe = validate_plan(raw_plan, tree, granted, current_package=screen.current_package)
    except PlanRejected as rejected:
        return refusal(command, CommandStatus.REJECTED, rejected.reason, PhraseKey.ERR_REJECTED)
    return answer(command, safe, tree, transcript_confident=progress.confident)


def _declined(raw_plan: object) -> str | None:
    """The reason when the planner answered with no steps (it could not, or would not, do what
    was asked): its own `reason` when it is one of DECLINE_REASONS, else `nothing_to_do`."""
    if not (isinstance(raw_plan, dict) and raw_plan.get("steps") == []):
        return None
    reason = raw_plan.get("reason")
    return reason if reason in DECLINE_REASONS else "nothing_to_do"


def refusal(
    command: Command, status: CommandStatus, reason: str, speak: PhraseKey
) -> CommandResponse:
    """REJECTED or REPROMPT: a reason and a phrase, never a plan."""
    return CommandResponse(
        command_id=command.command_id, status=status, reprompt_reason=reason, speak_code=speak.value
    )


def answer(
    command: Command, plan: SafePlan, tree: ViewTree, *, transcript_confident: bool
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
        speech_response_text=question.confirmation_question(
            plan, tree, command.request.locale.value
        ),
        speak_code=PhraseKey.CONFIRM.value,
    )
