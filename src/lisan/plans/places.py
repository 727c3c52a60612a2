"""Where each step of a plan acts, as the plan moves between screens and apps: the last of the
plan rules (`rules`), after every step was read.

4. Where each step acts, in order, from the screen the phone sent:
   - a step that names a target node acts in `current_package`, the app whose screen that is,
     and only while the plan is still on that screen: after an `OPEN_APP`, a `HOME` or a `BACK`
     the ids belong to a screen that is gone (`stale_target`); after a `TAP` that may navigate
     (anything but a text field) they may, so a later step that names a node is asked, never
     done on the plan's word (`unread`: the question names it);
   - after a `SCROLL`, a step that names a node inside what scrolled (a row of the list, or any
     node when the SCROLL named no target and moved the screen) is asked (`unread`), not
     refused: the row view the id names may now show another row, which the planner could not
     see, but a list that scrolls by less than a page keeps many of its rows, and the question
     names the row the user is about to act on, so a yes is the user's own reading of the
     screen. The scrolled list itself, and a node outside it (a toolbar's button, the field
     below the list), stays where it was and is not asked for this;
   - `OPEN_APP` acts in the app it opens: the plan's `package_name` (a payload that is a package
     name must be that one); it is then the app in front;
   - `HOME` acts in no app: the launcher is then in front, which no grant names;
   - `TAP`, `SCROLL`, `TEXT_INPUT` and `BACK` act in the app in front, target or not: `BACK`
     navigates, and a target-less `SCROLL` or `TEXT_INPUT` moves or types into, whatever app
     is in front;
   - after a `BACK`, or a `TAP` on anything but a text field (it may follow a link, into any
     app), the app in front is unknown until an `OPEN_APP` or a `HOME`.
   The plan's `package_name` must be granted, and so must the app every step acts in
   (`app_not_granted`; the launcher, or an empty `current_package`, never is); every step must
   act in the plan's `package_name` (`app_mismatch`): a plan acts in one app; no target may
   name a node of a screen the plan has left (`stale_target`); no target-less `TEXT_INPUT` or
   `SCROLL` may act while the app in front is unknown (`app_in_front_unknown`). Refused rather
   than asked: the question "Type 'hello'?" cannot tell the user which app would receive it,
   and a planner that means the field on screen can name it. Reported in that order. So from
   any screen a plan may go `HOME` or `OPEN_APP` a granted app, and only a plan that starts
   there (after any `HOME`) acts in another app than the one in front. A plan that acts in no
   app (only `HOME`) names a granted app or the app it leaves. These checks come last, so an
   unknown action is reported as what it is even in an app never granted.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from lisan.plans.safe import PlanRejected, Refusal, SafeStep
from lisan.screen.lines import Branch
from lisan.screen.packages import is_package_name
from lisan.screen.viewtree import ViewTree

# Steps that act wherever the phone is, with no node to pin them to a screen.
TARGETLESS_ACTS = frozenset({"TEXT_INPUT", "SCROLL"})


def unread_after_navigation(steps: tuple[SafeStep, ...], tree: ViewTree) -> tuple[SafeStep, ...]:
    """Rule 4's first point: a step on a node the plan may have moved away from is asked
    (`unread`), never done on the plan's word. After a TAP that may navigate (anything but a
    text field), the screen the ids name may be gone; after a SCROLL, a node inside what
    scrolled (the list, or with no target the whole screen) may now show another row. After a
    BACK or a HOME the screen is gone for sure: such a step is refused (`check_apps`,
    `stale_target`)."""
    navigated, checked = False, []
    scrolled: list[Branch | None] = []  # what each SCROLL so far moved; None: the screen
    for step in steps:
        if step.target_node_id is not None and (
            navigated or _inside_any(step.target_node_id, scrolled, tree)
        ):
            step = replace(step, unread=True)
        checked.append(step)
        navigated = navigated or (step.action_type == "TAP" and step.leaves_app_unknown)
        if step.action_type == "SCROLL":
            scrolled.append(
                None if step.target_node_id is None else tree.branch(step.target_node_id)
            )
    return tuple(checked)


def _inside_any(node_id: str, scrolled: list[Branch | None], tree: ViewTree) -> bool:
    """Whether the node lies inside something a SCROLL moved: a list it sits in (the list
    itself stays where it is), or the screen (`None`, a SCROLL with no target)."""
    if not scrolled:
        return False
    branch = tree.branch(node_id)
    if branch is None or None in scrolled:
        return True
    starts = {ancestor.start for ancestor in tree.ancestors(branch)}
    return any(container is not None and container.start in starts for container in scrolled)


def check_apps(
    package_name: str, steps: tuple[SafeStep, ...], current_package: str, granted: Collection[str]
) -> None:
    """Rule 4 of the module's docstring: where each step acts, as the plan moves between apps."""
    # On the screen the phone sent, the app in front is `current_package`; "" is the launcher.
    in_front, on_sent_screen, known = current_package, True, True
    acted_in: list[str] = []  # the app each step acts in, HOME steps left out
    stale = blind = False
    for step in steps:
        if step.target_node_id is not None:
            if on_sent_screen:
                acted_in.append(current_package)
            else:  # the id names a node of a screen the plan has left
                stale = True
        elif step.action_type not in {"HOME", "OPEN_APP"}:
            acted_in.append(in_front)
            # Typed or scrolled into whatever app a BACK or a link left in front.
            blind = blind or (not known and step.action_type in TARGETLESS_ACTS)
        if step.action_type == "HOME":
            in_front, on_sent_screen, known = "", False, True
        elif step.action_type == "OPEN_APP":
            in_front = step.payload if is_package_name(step.payload) else package_name
            acted_in.append(in_front)
            on_sent_screen, known = False, True
        elif step.action_type == "BACK":
            on_sent_screen, known = False, False  # the screen sent is gone
        elif step.leaves_app_unknown:
            known = False
    if package_name not in granted and (acted_in or package_name != current_package):
        raise PlanRejected(Refusal.APP_NOT_GRANTED)
    if any(app not in granted for app in acted_in):  # "" (the launcher) never is
        raise PlanRejected(Refusal.APP_NOT_GRANTED)
    if any(app != package_name for app in acted_in):
        raise PlanRejected(Refusal.APP_MISMATCH)
    if stale:
        raise PlanRejected(Refusal.STALE_TARGET)
    if blind:
        raise PlanRejected(Refusal.APP_IN_FRONT_UNKNOWN)
    if not is_package_name(package_name):  # only a plan of HOME steps gets here with one
        raise PlanRejected(Refusal.APP_NOT_GRANTED)
