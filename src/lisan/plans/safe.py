"""What the plan rules hand on: a plan that kept every rule (`SafePlan`, its `SafeStep`s), or
the rule it broke (`PlanRejected`, its `Refusal`). Only what these hold reaches the phone.

`Refusal` is every reason the rules give, each by one name: its value is the REJECTED command's
`reprompt_reason` on the wire and the `reason` label of `lisan_commands`, declared to the
metrics here, at import, so `core.metrics` names no reason of the rules."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from lisan.core import metrics


class Refusal(StrEnum):
    """Why the plan rules refuse a plan (`rules` says which check gives which)."""

    INVALID_PLAN = "invalid_plan"
    TOO_MANY_STEPS = "too_many_steps"
    ACTION_NOT_ALLOWED = "action_not_allowed"
    MISSING_DESTRUCTIVE_FLAG = "missing_destructive_flag"
    UNKNOWN_TARGET_NODE = "unknown_target_node"
    TARGET_NOT_CLICKABLE = "target_not_clickable"
    TARGET_NOT_SCROLLABLE = "target_not_scrollable"
    TARGET_NOT_EDITABLE = "target_not_editable"
    TARGET_DISABLED = "target_disabled"
    TOO_MANY_ASKED_STEPS = "too_many_asked_steps"
    APP_NOT_GRANTED = "app_not_granted"
    APP_MISMATCH = "app_mismatch"
    STALE_TARGET = "stale_target"
    APP_IN_FRONT_UNKNOWN = "app_in_front_unknown"


metrics.COMMAND_REASONS.declare(Refusal)


class PlanRejected(Exception):
    """The plan broke a rule; `reason` says which (the command's `reprompt_reason`)."""

    def __init__(self, reason: Refusal) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SafeStep:
    action_type: str
    target_node_id: str | None
    payload: str | None
    is_destructive: bool
    # For the rules only, never sent: after this step the app in front is unknown (a BACK, or
    # a TAP that may follow a link).
    leaves_app_unknown: bool = field(default=False, compare=False)
    # For the rules only: it names a node of a screen a TAP before it may have left, so what it
    # acts on was never read (or a control whose meaning the rules could not read): it is asked,
    # and the question names it.
    unread: bool = field(default=False, compare=False)
    # For the question only: the message outside the node that gave the step its meaning ("OK"
    # under "Remove 12 photos?"), quoted so the user hears what a yes does.
    context: str | None = field(default=None, compare=False)
    # For the question only: the text nearest to a TAP that nothing explains, or whose label
    # another control shares ("OK" beside "Don't ask me again", "Delete" beside "Photo 3"), so
    # the user hears which control, and where, a yes taps.
    beside: str | None = field(default=None, compare=False)

    @property
    def asked(self) -> bool:
        """The user hears this step named before it runs: the service reads it as consequential,
        or cannot read it."""
        return self.is_destructive or self.unread


@dataclass(frozen=True, slots=True)
class SafePlan:
    package_name: str
    steps: tuple[SafeStep, ...]
    planner_asked_confirmation: bool

    def requires_confirmation(self, *, transcriber_confident: bool) -> bool:
        """Any step asked (consequential or unread), the planner asked, or the transcriber gave
        no confidence."""
        asked = bool(self.asked_steps())
        return asked or self.planner_asked_confirmation or not transcriber_confident

    def asked_steps(self) -> tuple[SafeStep, ...]:
        """Every step the question must name: whatever the planner flagged, the service decides."""
        return tuple(step for step in self.steps if step.asked)
