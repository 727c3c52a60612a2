"""What the phone is told, once a command is decided: a refusal (a reason and a phrase), or a
checked plan with the phrase or the question that goes with it. Everything the phone speaks is
the service's own: a phrase key, or a question composed from the checked plan (`plans.question`),
never the words of a planner that read the screen.

It takes the command's id and language, not the pipeline's types: every step may answer."""

from __future__ import annotations

import uuid

from lisan.commands.schemas import ActionPlanView, ActionStepView, CommandResponse, CommandStatus
from lisan.core.locale import Locale
from lisan.phrases.schemas import PhraseKey
from lisan.plans import question
from lisan.plans.safe import SafePlan
from lisan.providers.base import Decline
from lisan.screen.viewtree import ViewTree

_DECLINES = {decline.value: decline for decline in Decline}


def declined(raw_plan: object) -> Decline | None:
    """The reason when the planner answered with no steps (it could not, or would not, do what
    was asked): its own `reason` when it is a `Decline`, else `nothing_to_do` (whatever JSON the
    planner put there: a list or an object is no reason either)."""
    if not (isinstance(raw_plan, dict) and raw_plan.get("steps") == []):
        return None
    reason = raw_plan.get("reason")
    if not isinstance(reason, str):
        return Decline.NOTHING_TO_DO
    return _DECLINES.get(reason, Decline.NOTHING_TO_DO)


def refusal(
    command_id: uuid.UUID, status: CommandStatus, reason: str, speak: PhraseKey
) -> CommandResponse:
    """REJECTED or REPROMPT: a reason and a phrase, never a plan."""
    return CommandResponse(
        command_id=command_id, status=status, reprompt_reason=reason, speak_code=speak.value
    )


def answer(
    command_id: uuid.UUID,
    plan: SafePlan,
    tree: ViewTree,
    *,
    locale: Locale,
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
            command_id=command_id,
            status=CommandStatus.ACCEPTED,
            action_plan=view,
            speak_code=PhraseKey.ACK.value,
        )
    return CommandResponse(
        command_id=command_id,
        status=CommandStatus.CONFIRMATION_REQUIRED,
        action_plan=view,
        speech_response_text=question.confirmation_question(plan, tree, locale.value),
        speak_code=PhraseKey.CONFIRM.value,
    )
