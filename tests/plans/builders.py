"""Plans and the screen the plan-rule tests check them against: `step()` and `plan()` build a
harmless TAP on "Chats" in a granted chat app, changed field by field; `validated` and `rejection`
check one against that screen."""

from __future__ import annotations

from typing import Any

import pytest

from lisan.plans.rules import PlanRejected, SafePlan, validate_plan
from lisan.screen.viewtree import ViewTree

APP = "com.example.chat"
OTHER_APP = "org.telegram.messenger"
UNGRANTED = "com.evil.app"
GRANTED = frozenset({APP, OTHER_APP})
NODES = ViewTree(
    """\
[n1] FrameLayout
  [n2] TextView "Chats" {clickable}
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Abebe" desc="Contact Abebe" {clickable}
  [n7] ImageButton desc="Delete conversation" {clickable}
  [n8] Button "ሰርዝ" {clickable}
  [n9] TextView "Settings" {clickable}
"""
)
REASONS = {
    "invalid_plan",
    "action_not_allowed",
    "missing_destructive_flag",
    "unknown_target_node",
    "app_not_granted",
    "too_many_steps",
    "target_disabled",
    "app_mismatch",
    "stale_target",
    "target_not_clickable",
    "app_in_front_unknown",
}

Json = Any


def step(**fields: Json) -> dict[str, Json]:
    """A valid, harmless TAP on "Chats", with `fields` replacing or adding keys."""
    base: dict[str, Json] = {
        "action_type": "TAP",
        "target_node_id": "n2",
        "payload": None,
        "is_destructive": False,
    }
    return base | fields


def without(mapping: dict[str, Json], key: str) -> dict[str, Json]:
    return {k: v for k, v in mapping.items() if k != key}


def plan(*steps: dict[str, Json], **fields: Json) -> dict[str, Json]:
    base: dict[str, Json] = {
        "package_name": APP,
        "steps": list(steps) or [step()],
        "needs_confirmation": False,
        "speech_response_text": None,
    }
    return base | fields


def validated(
    raw: Json, granted: frozenset[str] = GRANTED, tree: ViewTree = NODES, current: str = APP
) -> SafePlan:
    """The plan checked against a screen of `current` (APP: granted, as in most tests)."""
    return validate_plan(raw, tree, granted, current_package=current)


def rejection(
    raw: Json, granted: frozenset[str] = GRANTED, tree: ViewTree = NODES, current: str = APP
) -> str:
    with pytest.raises(PlanRejected) as caught:
        validated(raw, granted, tree, current)
    assert caught.value.reason in REASONS
    return caught.value.reason
