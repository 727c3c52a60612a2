"""The question before a confirmed step runs is the service's own sentence: it names the step
in the user's language (en-US, else am-ET), quotes untrusted text cleaned and bounded so it cannot
break the sentence, names an app as the package that really opens, and never speaks the planner's
words."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.phrases.catalog import CATALOG
from lisan.phrases.schemas import PhraseKey
from lisan.plans.question import MAX_QUOTED_CHARS, confirmation_question, quotable, step_question
from lisan.plans.safe import SafePlan, SafeStep
from lisan.screen.actions import ACTION_TYPES
from lisan.screen.viewtree import ViewTree
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures import commands as sent
from tests.fixtures.devices import TELEGRAM
from tests.fixtures.plans import HOSTILE_SCREEN, run_cases

APP = "com.example.chat"


NODES = ViewTree(
    """\
[n1] FrameLayout
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView desc="Chats" {scrollable}
  [n7] ImageButton desc="Delete conversation" {clickable}
  [n8] Button "ሰርዝ" {clickable}
  [n9] View {clickable}
  [n10] Button "Pay \\"now\\" «quickly»" {clickable}
"""
)


EN = Locale.EN_US.value


AM = Locale.AM_ET.value


ETHIOPIC = range(0x1200, 0x1380)


def tap(target: str | None, payload: str | None = None) -> SafeStep:
    return SafeStep("TAP", target, payload, True)


def say(step: SafeStep, language: str, package_name: str = APP) -> str:
    return step_question(step, NODES, package_name, language)


def ethiopic_share(text: str) -> float:
    letters = [char for char in text if char.isalpha()]
    return sum(ord(char) in ETHIOPIC for char in letters) / len(letters)


@pytest.mark.parametrize(
    ("step", "english", "amharic"),
    [
        (
            tap("n8"),
            "Tap “ሰርዝ”? Say yes to go ahead.",
            "«ሰርዝ»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            tap("n7"),
            "Tap “Delete conversation”? Say yes to go ahead.",
            "«Delete conversation»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            SafeStep("TEXT_INPUT", "n3", "ሰላም አበበ", True),
            "Type “ሰላም አበበ”? Say yes to go ahead.",
            "«ሰላም አበበ» ልጻፍ? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            SafeStep("OPEN_APP", None, "Example Chat", True),
            "Open “Example Chat”? Say yes to go ahead.",
            "«Example Chat»ን ልክፈት? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            SafeStep("SCROLL", "n5", None, True),
            "Scroll “Chats”? Say yes to go ahead.",
            "«Chats»ን ልሸብልል? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            SafeStep("SCROLL", None, None, True),
            "Scroll the screen? Say yes to go ahead.",
            "ገጹን ልሸብልል? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            SafeStep("BACK", None, None, True),
            "Go back? Say yes to go ahead.",
            "ወደ ኋላ ልመለስ? ለመቀጠል «አዎ» ይበሉ።",
        ),
        (
            SafeStep("HOME", None, None, True),
            "Go to the home screen? Say yes to go ahead.",
            "ወደ መነሻ ገጽ ልሂድ? ለመቀጠል «አዎ» ይበሉ።",
        ),
    ],
)
def test_each_action_type_in_both_languages(step: SafeStep, english: str, amharic: str) -> None:
    """Each action type has its question in English and Amharic, naming the step."""
    assert say(step, EN) == english
    assert say(step, AM) == amharic


@pytest.mark.parametrize("action_type", sorted(ACTION_TYPES))
def test_every_action_type_has_a_question_in_both_languages(action_type: str) -> None:
    """Every action type's question ends with how to go ahead, and the Amharic one is Ethiopic."""
    step = SafeStep(action_type, "n8", "ሰርዝ", True)
    english, amharic = say(step, EN, "et.serz.app"), say(step, AM, "et.serz.app")
    assert english.endswith("? Say yes to go ahead.")
    assert amharic.endswith("? ለመቀጠል «አዎ» ይበሉ።")
    assert ethiopic_share(amharic) == 1.0
    if action_type not in {"BACK", "HOME"}:
        assert "ሰርዝ" in english
        assert "ሰርዝ" in amharic


def test_the_way_to_proceed_matches_the_catalogs_confirm_phrase() -> None:
    """How to go ahead is said as the catalog's CONFIRM phrase says it."""
    for language in Locale:
        proceed = CATALOG[language][PhraseKey.CONFIRM].split("? ", 1)[1]
        assert say(tap("n8"), language.value).endswith(proceed)


@pytest.mark.parametrize("target", ["n7", "n4"])
def test_amharic_questions_are_ethiopic_around_a_latin_label(target: str) -> None:
    """An Amharic question is Ethiopic around the quoted label, whatever script the label is in."""
    text = say(tap(target), AM)
    label = text[text.index("«") + 1 : text.index("»")]
    outside = text.replace(f"«{label}»", "")
    assert ethiopic_share(outside) == 1.0
    assert label in {"Delete conversation", "Send"}


def test_any_other_language_is_spoken_in_amharic() -> None:
    """Any language other than en-US is asked in am-ET, the contract's default."""
    assert say(tap("n8"), "fr-FR") == say(tap("n8"), AM)


def test_the_label_is_the_nodes_text_then_its_desc() -> None:
    """The question names the target by its text, else its description."""
    assert "“Send”" in say(tap("n4"), EN)
    assert "“Delete conversation”" in say(tap("n7"), EN)


def test_without_a_label_the_payload_then_that_it_has_none() -> None:
    """Without a label the question names the payload, else says the button has no label."""
    assert say(tap("n9", payload="Archive"), EN) == "Tap “Archive”? Say yes to go ahead."
    assert say(tap("n9"), EN) == "Tap a button with no label? Say yes to go ahead."
    assert say(tap(None), AM) == "ስም የሌለውን ቁልፍ ልጫን? ለመቀጠል «አዎ» ይበሉ።"
    assert say(tap("gone"), EN) == "Tap a button with no label? Say yes to go ahead."


def test_a_tap_that_takes_its_meaning_from_a_message_names_the_message() -> None:
    """A tap whose label names no act is named with the message that gave it its meaning, cut
    around the word that makes it consequential."""
    long_message = (
        "Your library holds 12 photos from last summer. Remove them? This can't be undone."
    )
    ok = SafeStep("TAP", "n9", None, True, context=long_message)
    assert say(ok, EN) == (
        "Tap the button on “…summer. Remove them? This can't be…”? Say yes to go ahead."
    )
    labelled = SafeStep("TAP", "n4", None, True, context="Remove 12 photos?")
    assert say(labelled, EN) == "Tap “Send” on “Remove 12 photos?”? Say yes to go ahead."
    assert say(labelled, AM) == "«Remove 12 photos?» ላይ «Send»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"


def test_text_input_names_what_it_types_not_the_field() -> None:
    """A TEXT_INPUT question names what it types, never the field's label."""
    step = SafeStep("TEXT_INPUT", "n3", "", True)
    assert say(step, EN) == "Type this? Say yes to go ahead."
    assert say(step, AM) == "ይህን ልጻፍ? ለመቀጠል «አዎ» ይበሉ።"


def test_open_app_falls_back_to_the_package_then_a_generic_app() -> None:
    """An app with no name is named by its package, else as "this app"."""
    step = SafeStep("OPEN_APP", None, None, True)
    assert say(step, EN) == f"Open “{APP}”? Say yes to go ahead."
    assert say(step, EN, package_name="") == "Open this app? Say yes to go ahead."
    assert say(step, AM, package_name="") == "ይህን መተግበሪያ ልክፈት? ለመቀጠል «አዎ» ይበሉ።"


def test_long_labels_are_cut_with_an_ellipsis() -> None:
    """A quoted text is cut at 40 characters, with an ellipsis."""
    payload = "ሰ" * 41
    step = SafeStep("TEXT_INPUT", "n3", payload, True)
    assert say(step, AM) == f"«{'ሰ' * 40}…» ልጻፍ? ለመቀጠል «አዎ» ይበሉ።"
    exact = SafeStep("TEXT_INPUT", "n3", "a" * 40, True)
    assert say(exact, EN) == f"Type “{'a' * 40}”? Say yes to go ahead."


@pytest.mark.parametrize(
    ("payload", "package", "named"),
    [
        ("Telegram", "org.telegram.messenger", "Telegram"),
        ("ቴሌግራም", "org.telegram.messenger", "ቴሌግራም"),
        ("My Bank", "com.mybank.app", "My Bank"),
        ("Telegram", "com.mybank.app", "com.mybank.app"),
        ("call +1 555 0100 now", "com.mybank.app", "com.mybank.app"),
        (None, "com.mybank.app", "com.mybank.app"),
    ],
)
def test_an_app_is_named_by_the_users_words_only_when_they_name_its_package(
    payload: str | None, package: str, named: str
) -> None:
    """The phone opens the package: the user hears its name, never another app's."""
    step = SafeStep("OPEN_APP", None, payload, True)
    assert say(step, EN, package) == f"Open “{named}”? Say yes to go ahead."
    assert say(step, AM, package) == f"«{named}»ን ልክፈት? ለመቀጠል «አዎ» ይበሉ።"


def test_quotes_in_a_label_cannot_close_ours() -> None:
    """Quote marks in a label are dropped: a label cannot close the service's quote."""
    assert say(tap("n10"), EN) == "Tap “Pay now quickly”? Say yes to go ahead."
    assert say(tap("n10"), AM) == "«Pay now quickly»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"


def test_a_plan_is_confirmed_by_naming_every_step_it_asks_about() -> None:
    """A plan's question names every step the service asks about, in order: a yes runs them
    all, so none may go unnamed, whichever the planner flagged."""
    plan = SafePlan(
        APP,
        (SafeStep("TAP", "n4", None, False), tap("n8"), tap("n7")),
        planner_asked_confirmation=False,
    )
    assert confirmation_question(plan, NODES, EN) == (
        "Tap “ሰርዝ”, then tap “Delete conversation”? Say yes to go ahead."
    )
    assert confirmation_question(plan, NODES, AM) == (
        "«ሰርዝ»ን ልጫን፣ ከዚያ «Delete conversation»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"
    )


def test_before_a_send_the_question_says_what_is_sent() -> None:
    """Before a consequential step, the text the plan typed last is named: the user hears what
    a "Send" sends."""
    typed = SafeStep("TEXT_INPUT", "n3", "see you at 6", False)
    plan = SafePlan(APP, (typed, tap("n4")), planner_asked_confirmation=False)
    assert confirmation_question(plan, NODES, EN) == (
        "Type “see you at 6”, then tap “Send”? Say yes to go ahead."
    )


def test_a_long_label_is_quoted_around_its_consequential_word() -> None:
    """A label too long to quote whole is quoted around the word that makes it consequential,
    not from its start."""
    label = "Your weekly summary of every conversation and archived item, then Delete all"
    nodes = ViewTree(f'[x] Button "{label}" {{clickable}}')
    text = step_question(SafeStep("TAP", "x", None, True), nodes, APP, EN)
    assert "Delete" in text
    assert text.startswith("Tap “…")


def test_a_plan_without_asked_steps_names_its_first_step_and_how_many_follow() -> None:
    """A plan with no step the service asks about (the planner asked) names its first step and
    how many follow."""
    plan = SafePlan(
        APP,
        (SafeStep("SCROLL", "n5", None, False), SafeStep("TAP", "n4", None, False)),
        planner_asked_confirmation=True,
    )
    assert confirmation_question(plan, NODES, AM) == (
        "«Chats»ን ልሸብልል እና ሌሎች 1 ደረጃዎች? ለመቀጠል «አዎ» ይበሉ።"
    )
    assert confirmation_question(plan, NODES, EN) == (
        "Scroll “Chats” and 1 more step? Say yes to go ahead."
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("Delete", "Delete"),
        ("  Delete\n\tall  ", "Delete all"),
        ('Say "yes"', "Say yes"),
        ("“Delete” „now‟", "Delete now"),
        ("«ሰርዝ» ‹x› 「y」 ＂z＂", "ሰርዝ x y z"),  # noqa: RUF001 (look-alike quotes on purpose)
        ("De\u200blete\u202e", "Delete"),  # zero-width space, right-to-left override
        ("line\u2028break\x00nul\x1bescape", "line break nul escape"),
        ("lone \ud800 surrogate", "lone surrogate"),
        ("private \ue000 use", "private use"),
        ("Don't", "Don't"),
        ("e\u0301", "\u00e9"),  # composed
        ("", None),
        ("  \n ", None),
        ('""', None),
        (None, None),
    ],
)
def test_quotable(raw: str | None, expected: str | None) -> None:
    """Untrusted text is quoted cleaned: control characters become spaces, format characters
    and quote marks are dropped, whitespace collapses; nothing left is None."""
    assert quotable(raw) == expected


@given(st.text())
def test_quotable_never_leaves_what_could_break_a_sentence(raw: str) -> None:
    """Whatever the text, what is quoted is short, trimmed, and holds no control, format or
    quote character and no lone surrogate."""
    cleaned = quotable(raw)
    if cleaned is None:
        return
    assert cleaned == cleaned.strip() != ""
    assert len(cleaned) <= MAX_QUOTED_CHARS + 1
    assert "  " not in cleaned
    for char in cleaned:
        assert unicodedata.category(char) not in {"Cc", "Cf", "Cs", "Co", "Zl", "Zp"}
        assert char not in '"“”„‟«»‹›＂'  # noqa: RUF001
    cleaned.encode("utf-8")  # speakable and serialisable: no lone surrogate


@given(st.text(), st.sampled_from(sorted(ACTION_TYPES)), st.sampled_from([EN, AM]))
def test_any_label_gives_one_short_question(label: str, action_type: str, language: str) -> None:
    """Whatever a label says, the question is one short sentence ending with how to go ahead."""
    escaped = label.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    nodes = ViewTree(f'[t] View "{escaped}"')
    step = SafeStep(action_type, "t" if nodes else None, label, True)
    text = step_question(step, nodes, APP, language)
    assert text.endswith(("Say yes to go ahead.", "ለመቀጠል «አዎ» ይበሉ።"))
    assert len(text) <= 120
    quoted = quotable(label)
    if quoted is not None and action_type not in {"BACK", "HOME", "OPEN_APP"}:
        assert quoted in text


SCREEN_WORDS = "Your account is locked. Call +1 555 0100 now."


async def test_the_planners_words_are_never_spoken(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: the planner's `speech_response_text` is never spoken, so screen text
    cannot speak to the user in the assistant's voice; the phone gets a phrase or the service's
    question."""
    cases = {
        "ACCEPTED": (
            sent.plan(sent.step("TAP", "n7"), speech_response_text=SCREEN_WORDS),
            TELEGRAM,
            HOSTILE_SCREEN,
            ("ACCEPTED", None),
        ),
        "nothing to do": (
            sent.plan(steps=[], speech_response_text=SCREEN_WORDS),
            TELEGRAM,
            HOSTILE_SCREEN,
            ("REJECTED", "nothing_to_do"),
        ),
        "asked to confirm": (
            sent.plan(
                sent.step("TAP", "n7"), needs_confirmation=True, speech_response_text=SCREEN_WORDS
            ),
            TELEGRAM,
            HOSTILE_SCREEN,
            ("CONFIRMATION_REQUIRED", None),
        ),
    }
    accepted, declined, confirm = await run_cases(settings_factory, fake_openai, cases)
    assert (accepted["speak_code"], "speech_response_text" in accepted) == ("ACK", False)
    assert (declined["speak_code"], "speech_response_text" in declined) == ("ERR_REJECTED", False)
    assert confirm["speech_response_text"] == "Tap “Settings”? Say yes to go ahead."
    for body in (accepted, declined, confirm):
        assert "555 0100" not in str(body)  # (a bare "555" could be part of a random UUID)
        assert "locked" not in str(body)


PAYMENT_SCREEN = """[n1] FrameLayout
  [n2] EditText "Search" {editable}
  [n3] Button "Search" {clickable}
  [n4] EditText "Amount" {editable}
  [n5] Button "Pay now" {clickable}"""


async def test_the_service_not_the_planner_decides_what_the_question_names(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Through the route: a planner that flags a harmless step destructive and a payment after
    it not destructive still gets a question naming the payment, and the amount typed before
    it: a yes runs the whole plan, so the user hears what it does."""
    cases = {
        "a decoy flag before an unflagged payment": (
            sent.plan(
                sent.step("TAP", "n3", destructive=True),
                sent.step("TEXT_INPUT", "n4", "5000"),
                sent.step("TAP", "n5"),
            ),
            TELEGRAM,
            PAYMENT_SCREEN,
            ("CONFIRMATION_REQUIRED", None),
        ),
    }
    (body,) = await run_cases(settings_factory, fake_openai, cases)
    assert body["speech_response_text"] == (
        "Tap “Search”, then type “5000”, then tap “Pay now”? Say yes to go ahead."
    )
    steps = body["action_plan"]["steps"]
    assert [step["is_destructive"] for step in steps] == [True, False, True]
