"""Plan rules checked in code whatever the planner says (docs/spec/service-spec.md, rules 4-6).

The planner reads untrusted screen text (and, offline, is our own rules over it): its plan is a
claim to check, never an order. `validate_plan` turns the raw JSON plan into a `SafePlan`, or
raises `PlanRejected` whose `reason` (a `safe.Refusal`) is the REJECTED command's
`reprompt_reason`; a rejected plan never reaches the phone. Every planner's plan passes
through here: the rules live in one place.

Checks, in this order (the first failure is the reason reported):

1. Shape (`invalid_plan`): the plan is an object; `package_name` is a string; `steps` is a
   non-empty list; at most `MAX_STEPS` of them (`too_many_steps`), counted before any step is
   read, so a planner answer of thousands of steps costs one len(); every step is an object,
   every `payload` a string or null/absent; `needs_confirmation`, when present, is a boolean;
   `speech_response_text`, when present, is a string or null.
2. Each step, in order; within a step:
   a. `action_type` is one of the six, spelled exactly (`action_not_allowed`);
   b. `is_destructive` is present and a boolean: absent is never assumed safe, and the string
      `"false"` is not a boolean (`missing_destructive_flag`);
   c. `target_node_id`, when not null, is a string naming exactly one node of the view tree
      (`unknown_target_node`): an id on two node lines names none, since a line injected through
      screen text could otherwise decide what the id points at; a `TAP` names one (a tap on no
      node lands nobody can say where);
   d. a payload holds at most `MAX_PAYLOAD_CHARS`; a `TEXT_INPUT` step carries a string
      payload, typed without control characters (a run of them becomes a space) or bidi
      controls (`typable`), and a `SCROLL` payload is a direction (`up`, `down`, `left`,
      `right`) or absent (`invalid_plan`);
   e. a `TAP` target takes clicks (`{clickable}`, or `{editable}`: a field takes focus) or sits
      inside a node that does (`target_not_clickable`): Android hands a click to the nearest
      clickable ancestor, so that node is what a TAP acts on; of a target with none, nobody
      can say what a tap there does;
   f. a `SCROLL` target scrolls, or sits inside a node that does, and that node is what the
      phone is told to scroll (`target_not_scrollable`): a sideways swipe on a list row is how
      many apps archive or delete, so a row is never what is swiped;
   g. a `TEXT_INPUT` target is a text field (`{editable}`) or sits inside one
      (`target_not_editable`): typed into a button or a label, the text lands nowhere the user
      sees (or in whatever field has focus);
   h. what a `TAP` acts on (the clicked node), or a `TEXT_INPUT` target, is not `{disabled}`
      (`target_disabled`).
   A step keeps only what its action type defines: a target for `TAP`, `TEXT_INPUT` and
   `SCROLL`, a payload for `TEXT_INPUT`, `OPEN_APP` and `SCROLL` (its direction). The rest is
   dropped after it was checked, so a TAP's payload never reaches the phone.
3. (The step count is part of 1.)
4. Where each step acts, as the plan moves between screens and apps (`places`).
5. At most `MAX_ASKED_STEPS` steps the rules ask about (`too_many_asked_steps`): a yes runs the
   whole plan, so the one question the phone speaks names every such step (`question`), and a
   question naming more is no question a person can answer.

Keys the rules do not know are dropped, not echoed: only what `SafeStep` holds reaches the phone.
`speech_response_text` is checked for shape and otherwise ignored: what the phone speaks is the
service's own (see `question`), never the words of a planner that read the screen.

Independence from the planner: a step is destructive (a spoken confirmation before it runs)
when the planner says so, and also
- when what it acts on reads like a consequential act (`words`): for a TAP the clicked
  node and everything under it (a "Delete account" label on the child of a clickable row makes
  tapping the row, or the row's icon, destructive); for a TEXT_INPUT or SCROLL its target's
  subtree;
- when a TAP commits to what its SCREEN commits to (`consequence`): the page's heading, the
  dialog's message, an amount with its currency, a message field beside it. On a screen that
  moves money, deletes or overwrites data, sends in the user's name or closes a membership,
  every committing tap is asked: an assent ("OK", "Continue", a check mark), an unlabelled
  control, a list row that carries out the act, the control that sends a composed message, a
  dismissal that does what its message asks ("Close" under "Close your account?", "No" under
  "Save your changes?"). A tap that names no act and that nothing around explains cannot be
  read, and is asked (`SafeStep.unread`), never accepted on the plan's word, and flagged
  destructive like any step the question names; the question says where it is, by the nearest
  text that says something (`nearest_text`: "OK" beside "Don't ask me again"). The text that
  made the step consequential is `SafeStep.context`, for the question to quote;
- when it opens an app whose spoken name the service cannot tie to the package it opens
  (`names_package`): the phone must never open one app while the user hears another's name.
What commits nothing stays unasked: typing, a scroll, BACK, a tab, a labelled control whose
own label names a harmless act ("Settings"), a price in a shop's list.
A TAP whose control shows a label another control also shows is asked (`SafeStep.unread`),
whatever planner made it: which of them a plan names is its guess (`labels`, where the rule
is stated whole), and the question names which by the nearest text around it.
This only ever upgrades a step, never downgrades the planner's `true`. How words are read
(look-alikes, invisible characters, word pieces, prefixes) is `words`', Amharic `amharic`'s.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from lisan.plans.consequence import Meaning, is_field, what_it_does
from lisan.plans.labels import Labels, nearest_text, shown_name
from lisan.plans.places import check_apps, unread_after_navigation
from lisan.plans.safe import PlanRejected, Refusal, SafePlan, SafeStep
from lisan.screen.actions import ACTION_TYPES, SCROLL_DIRECTIONS
from lisan.screen.lines import Branch
from lisan.screen.packages import is_package_name, names_package
from lisan.screen.viewtree import ViewTree

MAX_STEPS = 20
# The longest payload a step may carry: a dictation of the longest command (15 s) is a few
# hundred characters; a planner's flood is refused before it is cleaned or quoted.
MAX_PAYLOAD_CHARS = 1_000
# The steps one spoken question may name (`question`): a plan asking about more is refused.
MAX_ASKED_STEPS = 3
DISABLED_TARGET_ACTIONS = frozenset({"TAP", "TEXT_INPUT"})

# Which fields each action type defines (docs/spec: the ActionStep, design.md for SCROLL's
# direction): what the rules do not know does not reach the phone.
TARGETED = frozenset({"TAP", "TEXT_INPUT", "SCROLL"})
WITH_PAYLOAD = frozenset({"TEXT_INPUT", "OPEN_APP", "SCROLL"})


def required_packages(raw: Any, current_package: str) -> set[str]:
    """The packages whose grant `validate_plan` may check, so the caller reads grant state once:
    the app on screen, the plan's package name, and OPEN_APP payloads that are package names.
    Best effort on any input; never raises. A string that is not a package name is left out: no
    grant can name it. Steps past `MAX_STEPS` are not read: such a plan is refused before any
    grant is checked."""
    candidates: list[object] = [current_package]
    if isinstance(raw, dict):
        candidates.append(raw.get("package_name"))
        steps = raw.get("steps")
        if isinstance(steps, list) and len(steps) <= MAX_STEPS:
            candidates += [
                step.get("payload")
                for step in steps
                if isinstance(step, dict) and step.get("action_type") == "OPEN_APP"
            ]
    return {package for package in candidates if is_package_name(package)}


def validate_plan(
    raw: Any, tree: ViewTree, granted: Collection[str], *, current_package: str
) -> SafePlan:
    """The raw plan as a SafePlan, or PlanRejected; the order of the checks is the module's.
    `tree` and `current_package` are the screen the phone sent with the command."""
    _check_shape(raw)
    package_name: str = raw["package_name"]
    steps: list[dict[str, Any]] = raw["steps"]
    labels = Labels(tree)
    safe_steps = unread_after_navigation(
        tuple(_check_step(step, tree, package_name, labels) for step in steps), tree
    )
    check_apps(package_name, safe_steps, current_package, granted)
    if sum(step.asked for step in safe_steps) > MAX_ASKED_STEPS:
        raise PlanRejected(Refusal.TOO_MANY_ASKED_STEPS)  # one question cannot name them all
    return SafePlan(
        package_name=package_name,
        steps=safe_steps,
        planner_asked_confirmation=raw.get("needs_confirmation", False),
    )


def _check_shape(raw: Any) -> None:
    """Counted before any step is read: a plan of thousands of steps costs one len()."""
    if not (
        isinstance(raw, dict)
        and isinstance(raw.get("package_name"), str)
        and isinstance(raw.get("steps"), list)
        and raw["steps"]
    ):
        raise PlanRejected(Refusal.INVALID_PLAN)
    if len(raw["steps"]) > MAX_STEPS:
        raise PlanRejected(Refusal.TOO_MANY_STEPS)
    if not (
        all(_step_shape_ok(step) for step in raw["steps"])
        and isinstance(raw.get("needs_confirmation", False), bool)
        and isinstance(raw.get("speech_response_text"), str | None)
    ):
        raise PlanRejected(Refusal.INVALID_PLAN)


def _step_shape_ok(step: Any) -> bool:
    return isinstance(step, dict) and isinstance(step.get("payload"), str | None)


def _check_step(
    step: dict[str, Any], tree: ViewTree, package_name: str, labels: Labels
) -> SafeStep:
    action_type = step.get("action_type")
    if not isinstance(action_type, str) or action_type not in ACTION_TYPES:
        raise PlanRejected(Refusal.ACTION_NOT_ALLOWED)
    planner_destructive = step.get("is_destructive")
    if not isinstance(planner_destructive, bool):
        raise PlanRejected(Refusal.MISSING_DESTRUCTIVE_FLAG)
    target = step.get("target_node_id")
    if target is not None and (not isinstance(target, str) or target not in tree):
        raise PlanRejected(Refusal.UNKNOWN_TARGET_NODE)
    payload: str | None = step.get("payload")
    if payload is not None and len(payload) > MAX_PAYLOAD_CHARS:
        raise PlanRejected(Refusal.INVALID_PLAN)
    if action_type == "TEXT_INPUT" and payload is None:
        raise PlanRejected(Refusal.INVALID_PLAN)
    if action_type == "SCROLL" and payload is not None and payload not in SCROLL_DIRECTIONS:
        raise PlanRejected(Refusal.INVALID_PLAN)
    if action_type == "TAP" and target is None:
        raise PlanRejected(Refusal.UNKNOWN_TARGET_NODE)  # a tap on no node: nobody can say where
    if action_type == "TEXT_INPUT":
        payload = typable(payload)
    # What the action type does not define is dropped: a TAP's payload never reaches the phone.
    target = target if action_type in TARGETED else None
    payload = payload if action_type in WITH_PAYLOAD else None
    acted_on = tree.branch(target) if target is not None else None
    if action_type == "TAP" and acted_on is not None:
        acted_on = _clicked(acted_on, tree)
    if action_type == "SCROLL" and acted_on is not None:
        acted_on = _scrolled(acted_on, tree)
        assert acted_on.node is not None
        target = acted_on.node.node_id  # the list scrolls: a swipe on its row is never sent
    if action_type == "TEXT_INPUT" and acted_on is not None:
        _check_takes_text(acted_on, tree)
    if (
        acted_on is not None
        and action_type in DISABLED_TARGET_ACTIONS
        and acted_on.node is not None
        and "disabled" in acted_on.node.flags
    ):
        raise PlanRejected(Refusal.TARGET_DISABLED)
    meaning = (
        what_it_does(acted_on, tree, action_type=action_type)
        if acted_on is not None
        else Meaning(consequential=False)
    )
    shared = (
        action_type == "TAP"
        and acted_on is not None
        and not is_field(acted_on)
        and labels.shared(acted_on)
    )
    unexplained = not meaning.read and meaning.context is None
    return SafeStep(
        action_type=action_type,
        target_node_id=target,
        payload=payload,
        is_destructive=(
            planner_destructive
            or meaning.consequential
            or not meaning.read  # flagged as the asked step it is
            or (action_type == "OPEN_APP" and not names_package(payload, package_name))
        ),
        leaves_app_unknown=action_type == "BACK"
        or (action_type == "TAP" and not is_field(acted_on)),
        unread=not meaning.read or shared,
        context=meaning.context,
        beside=(
            nearest_text(acted_on, tree, name=shown_name(acted_on, tree))
            if acted_on is not None and (shared or unexplained)
            else None
        ),
    )


def _clicked(target: Branch, tree: ViewTree) -> Branch:
    """The node a TAP on `target` acts on: the target, or the nearest clickable ancestor that
    receives the click. A target that neither is nor sits inside a clickable node is refused:
    nobody can say what a tap there does (`target_not_clickable`)."""
    receiver = tree.receiver(target)
    if receiver is None:
        raise PlanRejected(Refusal.TARGET_NOT_CLICKABLE)
    return receiver


# Bidi embeddings, overrides, isolates and marks: typed, they reorder what the user reads.
_BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f]+")


def typable(text: str | None) -> str:
    """What a TEXT_INPUT may type: no control character (a line break may send a message in a
    chat: each run becomes a space) and no bidi control (it would draw the text in another order
    than it is stored). An empty text is still one to type (a field emptied)."""
    return _CONTROLS.sub(" ", _BIDI_CONTROLS.sub("", text or ""))


def _check_takes_text(target: Branch, tree: ViewTree) -> None:
    """A TEXT_INPUT types into a text field: its target is `{editable}` or sits inside a node
    that is (`target_not_editable`). Typed into a button or a label, the text lands nowhere the
    user can see, or the phone falls back to whatever field has focus."""
    for candidate in (target, *tree.ancestors(target)):
        if is_field(candidate):
            return
    raise PlanRejected(Refusal.TARGET_NOT_EDITABLE)


def _scrolled(target: Branch, tree: ViewTree) -> Branch:
    """The node a SCROLL on `target` moves: the target when it scrolls, else its nearest
    scrollable ancestor. A sideways swipe on a list row is how many apps archive or delete, so a
    row is never what is swiped; a target with nothing scrollable is refused."""
    for candidate in (target, *tree.ancestors(target)):
        if candidate.node is not None and "scrollable" in candidate.node.flags:
            return candidate
    raise PlanRejected(Refusal.TARGET_NOT_SCROLLABLE)
