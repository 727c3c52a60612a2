"""What the command route answers for a transcript on an accuracy case's screen: the confidence
gate at a threshold, the local planner, and the plan rules (`lisan.plans.rules.validate_plan`),
as status, reason and steps. The accuracy benches and the gate's replay judge a decode by it."""

from __future__ import annotations

from bench.accuracy.cases import GRANTED, SCREENS, Step
from lisan.core.locale import Locale
from lisan.plans.rules import validate_plan
from lisan.plans.safe import PlanRejected
from lisan.providers.base import Screen
from lisan.providers.local import planner
from lisan.screen.viewtree import ViewTree


def planned(
    text: str, confidence: float | None, language: Locale, screen_key: str, threshold: float
) -> tuple[str, str | None, list[Step]]:
    """What the route answers for a transcript: status, reason, steps."""
    screen = SCREENS[screen_key]
    seen = Screen(screen.package, screen.tree, granted=screen.package in GRANTED)
    if not text.strip():
        return "REPROMPT", "empty_transcript", []
    if confidence is not None and confidence < threshold:
        return "REPROMPT", "low_confidence", []
    raw = planner.plan(text, seen, language, GRANTED)
    try:
        if not raw["steps"]:
            raise PlanRejected(raw.get("reason", "nothing_to_do"))
        plan = validate_plan(
            raw, ViewTree(screen.tree), set(GRANTED), current_package=screen.package
        )
    except PlanRejected as rejected:
        return "REJECTED", rejected.reason, []
    confirm = plan.requires_confirmation(transcriber_confident=confidence is not None)
    steps = [(s.action_type, s.target_node_id) for s in plan.steps]
    return ("CONFIRMATION_REQUIRED" if confirm else "ACCEPTED"), None, steps
