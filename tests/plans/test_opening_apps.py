"""OPEN_APP opens the plan's own package, which must be granted: a payload that is a package name
must be that one (`app_mismatch`), in the form Android gives it. A spoken name the service cannot
tie to the package it opens makes the step destructive, so the user is asked, hearing the package
that really opens."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from lisan.core.settings import Settings
from lisan.screen.packages import is_package_name, names_package
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import GMAIL, TELEGRAM
from tests.fixtures.plans import BANK, run_cases
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
    ("value", "expected"),
    [
        ("a.b", True),
        ("com.example.app", True),
        ("Com.Example_1.app_2", True),
        ("a." + "b" * 253, True),  # 255 characters
        ("a." + "b" * 254, False),  # 256
        ("ab", False),
        ("app", False),
        ("1a.b", False),
        ("a.1b", False),
        ("a..b", False),
        (".a.b", False),
        ("a.b.", False),
        ("a.b\n", False),
        ("a-b.c", False),
        ("ቴሌ.ግራም", False),
        (None, False),
        (42, False),
        (["a.b"], False),
    ],
)
def test_is_package_name(value: Json, expected: bool) -> None:
    """A package name is Android's form: dotted segments of letters, digits and `_`, each
    starting with a letter, at most 255 characters."""
    assert is_package_name(value) is expected


def test_open_app_naming_a_package_needs_that_package_granted_too() -> None:
    """OPEN_APP of a package name needs that package granted."""
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=UNGRANTED)
    assert rejection(plan(opens)) == "app_not_granted"
    assert rejection(plan(step(), opens)) == "app_not_granted"
    assert rejection(plan(opens), (GRANTED | {UNGRANTED}) - {APP}) == "app_not_granted"


def test_open_app_naming_a_granted_package_passes() -> None:
    """OPEN_APP of a granted package, the plan's own, passes and needs no question."""
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=OTHER_APP)
    safe = validated(plan(opens, package_name=OTHER_APP))
    assert safe.steps[0].payload == OTHER_APP
    assert not safe.steps[0].is_destructive  # a package name names itself


def test_open_app_naming_another_package_than_the_plans_is_a_mismatch() -> None:
    """OPEN_APP of a package other than the plan's is `app_mismatch`."""
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=OTHER_APP)
    assert rejection(plan(opens)) == "app_mismatch"


@pytest.mark.parametrize("payload", ["Telegram", "ቴሌግራም", "my.app ", "a.", None])
def test_open_app_by_spoken_name_opens_the_plans_own_app(payload: str | None) -> None:
    """OPEN_APP by a spoken name (or none) opens the plan's own app, which must be granted."""
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=payload)
    assert validated(plan(opens)).package_name == APP
    assert rejection(plan(opens, package_name=UNGRANTED)) == "app_not_granted"


@pytest.mark.parametrize(
    ("spoken", "package", "tied"),
    [
        ("Telegram", "org.telegram.messenger", True),
        ("telegram", "org.telegram.messenger", True),
        ("Telegram Messenger", "org.telegram.messenger", True),
        ("ቴሌግራም", "org.telegram.messenger", True),
        ("T\u0435legram", "org.telegram.messenger", True),  # a Cyrillic e reads as an e
        ("My Bank", "com.mybank.app", True),
        ("Google Maps", "com.google.android.apps.maps", True),
        ("WhatsApp", "com.whatsapp", True),
        ("ቴሌብር", "et.ethiotelecom.telebirr", True),  # transliteration spelling, nearly
        ("org.telegram.messenger", "org.telegram.messenger", True),
        ("My Bank", "org.telegram.messenger", False),
        ("Telegram", "com.mybank.app", False),
        ("App", "com.mybank.app", False),  # a generic word names no app
        ("Android", "com.android.chrome", False),
        ("", "org.telegram.messenger", False),
        (None, "org.telegram.messenger", False),
        ("com.mybank.app", "org.telegram.messenger", False),
        ("Telegram and call +1 555 0100", "org.telegram.messenger", False),
    ],
)
def test_names_package_ties_a_spoken_name_to_the_package_it_opens(
    spoken: str | None, package: str, tied: bool
) -> None:
    """A spoken name is tied to a package only when it names that package."""
    assert names_package(spoken, package) is tied


@pytest.mark.parametrize(
    ("payload", "destructive"),
    [("Chat", False), ("Example Chat", False), ("My Bank", True), (None, True), ("ቻት", False)],
)
def test_open_app_by_a_name_that_is_not_the_packages_needs_confirmation(
    payload: str | None, destructive: bool
) -> None:
    """OPEN_APP by a name the service cannot tie to the package it opens is destructive: the
    user is asked, hearing the package."""
    opens = step(action_type="OPEN_APP", target_node_id=None, payload=payload)
    assert validated(plan(opens)).steps[0].is_destructive is destructive


async def test_open_app_opens_the_plans_package_and_names_it_truthfully(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: OPEN_APP opens the plan's granted package; a name that is not that
    package's asks first, and the question names the package that really opens."""
    opening = {
        "a name the package bears": (
            sent.plan(sent.step("OPEN_APP", None, "Telegram"), package=TELEGRAM),
            "",
            "",
            ("ACCEPTED", None),
        ),
        "an Amharic name the package bears": (
            sent.plan(sent.step("OPEN_APP", None, "ቴሌግራም"), package=TELEGRAM),
            "",
            "",
            ("ACCEPTED", None),
        ),
        "the package itself": (
            sent.plan(sent.step("OPEN_APP", None, GMAIL), package=GMAIL),
            "",
            "",
            ("ACCEPTED", None),
        ),
        "a spoken name of another app": (
            sent.plan(sent.step("OPEN_APP", None, "My Bank"), package=TELEGRAM),
            "",
            "",
            ("CONFIRMATION_REQUIRED", None),
        ),
        "no name at all": (
            sent.plan(sent.step("OPEN_APP", None, None), package=TELEGRAM),
            "",
            "",
            ("CONFIRMATION_REQUIRED", None),
        ),
        "a package other than the plan's": (
            sent.plan(sent.step("OPEN_APP", None, GMAIL), package=TELEGRAM),
            "",
            "",
            ("REJECTED", "app_mismatch"),
        ),
        "an ungranted package": (
            sent.plan(sent.step("OPEN_APP", None, BANK), package=BANK),
            "",
            "",
            ("REJECTED", "app_not_granted"),
        ),
        "an ungranted app by a spoken name": (
            sent.plan(sent.step("OPEN_APP", None, "Bank"), package=BANK),
            "",
            "",
            ("REJECTED", "app_not_granted"),
        ),
    }
    bodies = await run_cases(settings_factory, fake_openai, opening)
    by_name = dict(zip(opening, bodies, strict=True))
    for name in ("a spoken name of another app", "no name at all"):
        body = by_name[name]
        assert body["action_plan"]["steps"][0]["is_destructive"] is True
        assert body["action_plan"]["requires_user_confirmation"] is True
        # The question names what really opens, never the planner's words.
        assert body["speech_response_text"] == f"Open “{TELEGRAM}”? Say yes to go ahead."
        assert "My Bank" not in body["speech_response_text"]
