"""The plan-safety rules, checked in code whatever the planner says (spec, general rule 4).

The planner is an LLM reading untrusted screen text: its plan is a claim to check, never trusted.
`validate_plan` turns the raw JSON plan into a `SafePlan`, or raises `PlanRejected` whose
`reason` is the REJECTED command's `reprompt_reason`; a rejected plan never reaches the phone.

Checks, in this order (the first failure is the reason reported):

1. Shape (`invalid_plan`): the plan is an object; `package_name` is a string; `steps` is a
   non-empty list of objects; every `payload` is a string or null/absent; `needs_confirmation`,
   when present, is a boolean; `speech_response_text`, when present, is a string or null.
2. Each step, in order; within a step:
   a. `action_type` is one of the six, spelled exactly (`action_not_allowed`);
   b. `is_destructive` is present and a boolean: absent is never assumed safe, and the string
      `"false"` is not a boolean (`missing_destructive_flag`);
   c. `target_node_id`, when not null, is a string naming a node of the view tree
      (`unknown_target_node`);
   d. a `TEXT_INPUT` step carries a string payload (`invalid_plan`).
3. At most `MAX_STEPS` steps (`too_many_steps`).
4. Grants (`app_not_granted`): `package_name` is currently granted, and so is every package an
   `OPEN_APP` step names in its payload. Last, so an unknown action is reported as what it is
   even in an app the user never granted.

Keys the rules do not know are dropped, not echoed: only what `SafeStep` holds reaches the phone.

Independence from the planner: a step is destructive when the planner says so, and also when its
target node's text or content description reads like a destructive action (`DESTRUCTIVE_WORDS`,
English and Amharic). This only ever upgrades a step to destructive, never downgrades the
planner's `true`, so a planner misled by the screen (or simply wrong) cannot skip the spoken
confirmation in front of a "Delete" or "ላክ" button. English words match at the start of a word,
in any case, so "Deleted items", "Payments" and "Sender" count too: a needless question is the
safe side of a wrong guess. Amharic words match anywhere in the text, because Amharic attaches
object markers and clitics to the verb ("ላክለት" holds "ላክ"); the price is the odd false alarm
("ግዛት", region, holds "ግዛ").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from lisan.commands.viewtree import ViewNode

ACTION_TYPES = frozenset({"TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"})
MAX_STEPS = 20

PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[.][A-Za-z][A-Za-z0-9_]*)+")
PACKAGE_NAME_LENGTH = range(3, 256)

# English: the start of a word, any case ("sign out" also as "sign-out", "signout", "sign off").
DESTRUCTIVE_ENGLISH = (
    "delete", "remove", "erase", "discard", "trash", "clear", "wipe", "uninstall", "reset",
    "send", "post", "publish", "share",
    "pay", "buy", "purchase", "order", "checkout", "transfer", "donate", "subscribe",
    "call", "dial",
    r"sign[\s_-]*(?:out|off)", r"log[\s_-]*(?:out|off)",
)  # fmt: skip
# Amharic: imperatives as Android apps label buttons (masculine, then the polite form), anywhere.
DESTRUCTIVE_AMHARIC = (
    "ሰርዝ", "ይሰርዙ",  # delete
    "አጥፋ", "ያጥፉ",  # erase, delete
    "ደምስስ", "ይደምስሱ",  # erase
    "አስወግድ", "ያስወግዱ",  # remove
    "አራግፍ", "ያራግፉ",  # uninstall
    "አጽዳ", "ያጽዱ",  # clear
    "ዳግም አስጀምር",  # reset
    "ላክ", "ይላኩ",  # send
    "ለጥፍ", "ይለጥፉ",  # post (also paste)
    "አጋራ", "ያጋሩ",  # share
    "ክፈል", "ይክፈሉ", "ክፍያ",  # pay, payment
    "ግዛ", "ይግዙ", "ግዢ",  # buy, purchase
    "እዘዝ", "ይዘዙ",  # order
    "አስተላልፍ", "ያስተላልፉ",  # transfer, forward
    "ደውል", "ይደውሉ",  # call
    "ውጣ", "ይውጡ",  # sign out, leave
)  # fmt: skip
DESTRUCTIVE_WORDS = re.compile(
    r"\b(?:" + "|".join(DESTRUCTIVE_ENGLISH) + ")|" + "|".join(DESTRUCTIVE_AMHARIC),
    re.IGNORECASE,
)


class PlanRejected(Exception):
    """The plan broke a rule; `reason` is a stable snake_case code for `reprompt_reason`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SafeStep:
    action_type: str
    target_node_id: str | None
    payload: str | None
    is_destructive: bool


@dataclass(frozen=True, slots=True)
class SafePlan:
    package_name: str
    steps: tuple[SafeStep, ...]
    planner_asked_confirmation: bool
    speech_response_text: str | None

    def requires_confirmation(self, *, transcriber_confident: bool) -> bool:
        """Any destructive step, the planner asked, or the transcriber gave no confidence."""
        return (
            self.first_destructive() is not None
            or self.planner_asked_confirmation
            or not transcriber_confident
        )

    def first_destructive(self) -> SafeStep | None:
        return next((step for step in self.steps if step.is_destructive), None)


def is_package_name(value: object) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and len(value) in PACKAGE_NAME_LENGTH
        and PACKAGE_NAME.fullmatch(value) is not None
    )


def reads_destructive(text: str | None) -> bool:
    """Whether screen text names a destructive action. Compatibility forms are folded and
    invisible format characters dropped first, so fullwidth letters or a zero-width space inside
    "Delete" do not hide it."""
    if not text:
        return False
    folded = unicodedata.normalize("NFKC", text)
    visible = "".join(char for char in folded if unicodedata.category(char) != "Cf")
    return DESTRUCTIVE_WORDS.search(visible) is not None


def required_packages(raw: Any) -> set[str]:
    """The packages whose grant `validate_plan` may check, so the caller reads grant state once:
    the plan's package name and OPEN_APP payloads that are package names. Best effort on any
    input; never raises. A string that is not a package name is left out: no grant can name it."""
    if not isinstance(raw, dict):
        return set()
    candidates = [raw.get("package_name")]
    steps = raw.get("steps")
    if isinstance(steps, list):
        candidates += [
            _opened_package(step.get("action_type"), step.get("payload"))
            for step in steps
            if isinstance(step, dict)
        ]
    return {package for package in candidates if is_package_name(package)}


def validate_plan(raw: Any, nodes: Mapping[str, ViewNode], granted: Collection[str]) -> SafePlan:
    """The raw plan as a SafePlan, or PlanRejected; the order of the checks is the module's."""
    _check_shape(raw)
    steps: list[dict[str, Any]] = raw["steps"]
    safe_steps = tuple(_check_step(step, nodes) for step in steps)
    if len(safe_steps) > MAX_STEPS:
        raise PlanRejected("too_many_steps")
    _check_grants(raw["package_name"], safe_steps, granted)
    return SafePlan(
        package_name=raw["package_name"],
        steps=safe_steps,
        planner_asked_confirmation=raw.get("needs_confirmation", False),
        speech_response_text=raw.get("speech_response_text"),
    )


def _check_shape(raw: Any) -> None:
    if not (
        isinstance(raw, dict)
        and isinstance(raw.get("package_name"), str)
        and isinstance(raw.get("steps"), list)
        and raw["steps"]
        and all(_step_shape_ok(step) for step in raw["steps"])
        and isinstance(raw.get("needs_confirmation", False), bool)
        and isinstance(raw.get("speech_response_text"), str | None)
    ):
        raise PlanRejected("invalid_plan")


def _step_shape_ok(step: Any) -> bool:
    return isinstance(step, dict) and isinstance(step.get("payload"), str | None)


def _check_step(step: dict[str, Any], nodes: Mapping[str, ViewNode]) -> SafeStep:
    action_type = step.get("action_type")
    if not isinstance(action_type, str) or action_type not in ACTION_TYPES:
        raise PlanRejected("action_not_allowed")
    planner_destructive = step.get("is_destructive")
    if not isinstance(planner_destructive, bool):
        raise PlanRejected("missing_destructive_flag")
    target = step.get("target_node_id")
    if target is not None and (not isinstance(target, str) or target not in nodes):
        raise PlanRejected("unknown_target_node")
    payload: str | None = step.get("payload")
    if action_type == "TEXT_INPUT" and payload is None:
        raise PlanRejected("invalid_plan")
    node = nodes[target] if target is not None else None
    return SafeStep(
        action_type=action_type,
        target_node_id=target,
        payload=payload,
        is_destructive=planner_destructive or _node_reads_destructive(node),
    )


def _node_reads_destructive(node: ViewNode | None) -> bool:
    return node is not None and (reads_destructive(node.text) or reads_destructive(node.desc))


def _check_grants(package_name: str, steps: tuple[SafeStep, ...], granted: Collection[str]) -> None:
    opened = (_opened_package(step.action_type, step.payload) for step in steps)
    needed = [package_name, *(package for package in opened if package is not None)]
    if any(package not in granted for package in needed):
        raise PlanRejected("app_not_granted")


def _opened_package(action_type: object, payload: object) -> str | None:
    """The package an OPEN_APP step names in its payload, when the payload is a package name
    (otherwise it is the app's name as the user said it, and the app is the plan's package)."""
    if action_type == "OPEN_APP" and is_package_name(payload):
        return payload
    return None
