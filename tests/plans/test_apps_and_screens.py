"""Where each step acts, from the screen the phone sent: a plan acts in one granted app
(`app_not_granted`, `app_mismatch`), names no node of a screen it has left (`stale_target`), and
types or scrolls nothing while the app in front is unknown (`app_in_front_unknown`). From any
screen it may go HOME or open a granted app. The grants read are the packages the plan may
touch (`required_packages`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.plans.rules import required_packages
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import GMAIL, TELEGRAM
from tests.fixtures.plans import (
    ACCEPTED,
    BANK,
    BANK_SCREEN,
    CHAT_SCREEN,
    CONFIRM,
    ROW_WITH_ICON,
    run_cases,
)
from tests.fixtures.rules import (
    APP,
    GRANTED,
    OTHER_APP,
    UNGRANTED,
    Json,
    plan,
    rejection,
    step,
    validated,
)


@pytest.mark.parametrize(
    ("package_name", "granted"),
    [
        (UNGRANTED, GRANTED),
        (APP, frozenset()),
        ("Com.Example.Chat", GRANTED),  # grants are exact
        ("", GRANTED),
        ("not a package", GRANTED),
    ],
)
def test_the_plans_app_must_be_granted(package_name: str, granted: frozenset[str]) -> None:
    """The plan's `package_name` is granted, exactly; else `app_not_granted`."""
    assert rejection(plan(package_name=package_name), granted) == "app_not_granted"


@pytest.mark.parametrize(
    ("raw", "current", "reason"),
    [
        (plan(step(target_node_id="n4"), package_name=OTHER_APP), UNGRANTED, "app_not_granted"),
        (plan(step(target_node_id="n4")), UNGRANTED, "app_not_granted"),
        (plan(step(target_node_id="n4")), "", "app_not_granted"),
        (plan(step(target_node_id="n4"), package_name=OTHER_APP), APP, "app_mismatch"),
        (plan(step(action_type="BACK", target_node_id=None)), UNGRANTED, "app_not_granted"),
        (plan(step(action_type="SCROLL", target_node_id=None)), UNGRANTED, "app_not_granted"),
        (
            plan(step(action_type="TEXT_INPUT", target_node_id=None, payload="hi")),
            "",
            "app_not_granted",
        ),
        (
            plan(step(action_type="BACK", target_node_id="n2"), package_name=UNGRANTED),
            UNGRANTED,
            "app_not_granted",
        ),
        (
            plan(step(action_type="OPEN_APP", target_node_id=None), step(target_node_id="n4")),
            APP,
            "stale_target",
        ),
        (
            plan(step(action_type="HOME", target_node_id=None), step(action_type="BACK")),
            APP,
            "app_not_granted",
        ),
        (
            plan(step(target_node_id="n4"), step(action_type="OPEN_APP", payload=OTHER_APP)),
            APP,
            "app_mismatch",
        ),
        (
            plan(step(action_type="HOME", target_node_id=None), package_name=""),
            "",
            "app_not_granted",
        ),
    ],
)
def test_a_step_acts_in_the_granted_app_in_front(raw: Json, current: str, reason: str) -> None:
    """Every step acts in the plan's app, granted and in front, on the screen the phone sent:
    else `app_not_granted`, `app_mismatch` or `stale_target`."""
    assert rejection(raw, current=current) == reason


@pytest.mark.parametrize(
    ("raw", "current"),
    [
        (plan(step(action_type="OPEN_APP", target_node_id=None, payload="Chat")), UNGRANTED),
        (plan(step(action_type="OPEN_APP", target_node_id=None, payload="Chat")), ""),
        (plan(step(action_type="HOME", target_node_id=None), package_name=UNGRANTED), UNGRANTED),
        (plan(step(action_type="HOME", target_node_id=None)), UNGRANTED),
        (
            plan(
                step(action_type="HOME", target_node_id=None),
                step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
                step(action_type="TEXT_INPUT", target_node_id=None, payload="hi"),
                step(action_type="BACK", target_node_id=None),
            ),
            UNGRANTED,
        ),
        (
            plan(
                step(target_node_id="n4"),
                step(action_type="OPEN_APP", target_node_id=None, payload="Chat"),
            ),
            APP,
        ),
    ],
)
def test_home_and_opening_a_granted_app_work_from_any_screen(raw: Json, current: str) -> None:
    """From any screen a plan may go HOME or open a granted app, and act there afterwards."""
    assert validated(raw, current=current).package_name == raw["package_name"]


def test_a_package_name_in_another_steps_payload_needs_no_grant() -> None:
    """Only what a plan opens or acts in needs a grant: a package name typed as text does not."""
    typed = step(action_type="TEXT_INPUT", target_node_id="n3", payload=UNGRANTED)
    assert validated(plan(typed)).steps[0].payload == UNGRANTED


def test_required_packages_names_the_plan_app_and_opened_packages() -> None:
    """The grants read for a plan: the app on screen, the plan's app, and the package names it
    opens."""
    raw = plan(
        step(action_type="OPEN_APP", payload=OTHER_APP),
        step(action_type="OPEN_APP", payload="Telegram"),
        step(action_type="TEXT_INPUT", payload=UNGRANTED),
        step(action_type="open_app", payload="com.lower.case"),
    )
    assert required_packages(raw, "com.on.screen") == {APP, OTHER_APP, "com.on.screen"}
    assert required_packages(raw, "") == {APP, OTHER_APP}


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (None, set()),
        ([], set()),
        ("com.example.chat", set()),
        ({}, set()),
        ({"package_name": ["x"]}, set()),
        ({"package_name": {"a": 1}, "steps": {"a": 1}}, set()),
        ({"package_name": "not a package"}, set()),
        ({"package_name": APP, "steps": "x"}, {APP}),
        ({"steps": [None, 1, [], {"action_type": "OPEN_APP", "payload": [OTHER_APP]}]}, set()),
        ({"steps": [{"action_type": ["OPEN_APP"], "payload": OTHER_APP}]}, set()),
        ({"steps": [{"action_type": "OPEN_APP", "payload": OTHER_APP}]}, {OTHER_APP}),
    ],
)
def test_required_packages_is_best_effort_on_garbage(raw: Json, expected: set[str]) -> None:
    """The grants read for a plan are found on any input, never raising; a string that is no
    package name is left out."""
    assert required_packages(raw, "") == expected
    assert required_packages(raw, "not a package") == expected


async def test_a_plan_acts_only_in_the_granted_app_on_screen(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: a plan acts only in the granted app on screen, and names no node of a
    screen it has left; from any screen it may go HOME or open a granted app."""
    transfer = sent.step("TAP", "n5")
    cases = {
        # The attack: a granted package claimed over an ungranted bank's screen.
        "a tap on an ungranted screen, claiming a granted app": (
            sent.plan(transfer, package=TELEGRAM),
            BANK,
            BANK_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
        "a tap on an ungranted screen, in its own name": (
            sent.plan(transfer, package=BANK),
            BANK,
            BANK_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
        "a tap with no app in front": (
            sent.plan(transfer, package=TELEGRAM),
            "",
            BANK_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
        "a granted screen, a plan claiming another granted app": (
            sent.plan(sent.step("TAP", "n4"), package=GMAIL),
            TELEGRAM,
            CHAT_SCREEN,
            ("REJECTED", "app_mismatch"),
        ),
        "BACK on an ungranted screen acts in it": (
            sent.plan(sent.step("BACK", None), package=TELEGRAM),
            BANK,
            BANK_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
        "a target-less SCROLL on an ungranted screen acts in it": (
            sent.plan(sent.step("SCROLL", None, "down"), package=TELEGRAM),
            BANK,
            BANK_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
        "a node id after OPEN_APP belongs to the old screen": (
            sent.plan(
                sent.step("OPEN_APP", None, "Telegram"), sent.step("TAP", "n4"), package=TELEGRAM
            ),
            TELEGRAM,
            CHAT_SCREEN,
            ("REJECTED", "stale_target"),
        ),
        "a node id after HOME belongs to the old screen": (
            sent.plan(sent.step("HOME", None), sent.step("TAP", "n4"), package=TELEGRAM),
            TELEGRAM,
            CHAT_SCREEN,
            ("REJECTED", "stale_target"),
        ),
        "acting in the app on screen, then opening another": (
            sent.plan(sent.step("TAP", "n7"), sent.step("OPEN_APP", None, "Gmail"), package=GMAIL),
            TELEGRAM,
            CHAT_SCREEN,
            ("REJECTED", "app_mismatch"),
        ),
        "OPEN_APP of a granted app from an ungranted screen": (
            sent.plan(sent.step("OPEN_APP", None, "Telegram"), package=TELEGRAM),
            BANK,
            BANK_SCREEN,
            ("ACCEPTED", None),
        ),
        "OPEN_APP from the launcher, then typing there": (
            sent.plan(sent.step("OPEN_APP", None, "Telegram"), sent.step("TEXT_INPUT", None, "hi")),
            "",
            "",
            ("ACCEPTED", None),
        ),
        "HOME from an ungranted screen": (
            sent.plan(sent.step("HOME", None), package=BANK),
            BANK,
            BANK_SCREEN,
            ("ACCEPTED", None),
        ),
        "HOME then OPEN_APP from an ungranted screen": (
            sent.plan(
                sent.step("HOME", None), sent.step("OPEN_APP", None, "Telegram"), package=TELEGRAM
            ),
            BANK,
            BANK_SCREEN,
            ("ACCEPTED", None),
        ),
        "BACK after HOME acts in the launcher": (
            sent.plan(sent.step("HOME", None), sent.step("BACK", None), package=TELEGRAM),
            TELEGRAM,
            CHAT_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
        "HOME in the name of an app neither granted nor on screen": (
            sent.plan(sent.step("HOME", None), package="com.other.app"),
            BANK,
            BANK_SCREEN,
            ("REJECTED", "app_not_granted"),
        ),
    }
    await run_cases(settings_factory, fake_openai, cases)


async def test_nothing_is_typed_or_scrolled_into_an_app_the_plan_cannot_know(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """After a BACK or a TAP that may follow a link, the app in front is unknown until an OPEN_APP
    or a HOME: a target-less TEXT_INPUT or SCROLL there is `app_in_front_unknown`."""
    unknown = ("REJECTED", "app_in_front_unknown")
    chat = ROW_WITH_ICON
    cases = {
        "open a granted app, go BACK to the ungranted one, type there": (
            sent.plan(
                sent.step("OPEN_APP", None, "Telegram"),
                sent.step("BACK", None),
                sent.step("TEXT_INPUT", None, "hi"),
            ),
            "com.example.bank",
            "[n1] FrameLayout",
            unknown,
        ),
        "BACK, then scroll whatever is in front": (
            sent.plan(sent.step("BACK", None), sent.step("SCROLL", None, "down")),
            TELEGRAM,
            chat,
            unknown,
        ),
        "a tap that may follow a link, then typing": (
            sent.plan(sent.step("TAP", "n7"), sent.step("TEXT_INPUT", None, "hi")),
            TELEGRAM,
            chat,
            unknown,
        ),
        "a tap on a text field, then typing into it": (
            sent.plan(
                sent.step("TAP", "n6"), sent.step("TEXT_INPUT", None, "hi", destructive=False)
            ),
            TELEGRAM,
            chat,
            ACCEPTED,
        ),
        "typing into a named field after a tap: the tap may have left the screen, so asked": (
            sent.plan(sent.step("TAP", "n7"), sent.step("TEXT_INPUT", "n6", "hi")),
            TELEGRAM,
            chat,
            CONFIRM,
        ),
        "BACK, then OPEN_APP: the app in front is known again": (
            sent.plan(
                sent.step("BACK", None),
                sent.step("OPEN_APP", None, "Telegram"),
                sent.step("TEXT_INPUT", None, "x"),
            ),
            TELEGRAM,
            chat,
            ACCEPTED,
        ),
    }
    await run_cases(settings_factory, fake_openai, cases)
