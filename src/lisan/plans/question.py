"""The spoken question before a confirmed plan runs: it names what a yes will do, in the user's
language.

en-US: 'Type “see you at 6”, then tap “Send”? Say yes to go ahead.'
am-ET: '«see you at 6» ልጻፍ፣ ከዚያ «Send»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።'

The phone speaks one question and runs the whole plan on a yes, so the service, not the planner,
decides what it names: every step the rules ask about (`SafeStep.asked`: consequential by the
service's reading, whatever the planner flagged, or acting on a screen the rules never read),
in plan order, at most `rules.MAX_ASKED_STEPS` of them (a plan with more is refused before it
gets here). Before a consequential step, the text the plan typed last is named too: a "Send"
says what is sent. A plan with no such step (the planner asked, or the transcriber gave no
confidence) names its first step and how many follow. A label too long to quote whole is
quoted around the word that makes it consequential, not from its start. A tap whose own label
names no act ("OK", a check mark, an unlabelled icon) is named with the message that gives it
its meaning: 'Tap “OK” on “Remove 12 photos? This can't be…”?'.

This is the only sentence of variable content the phone speaks, and it is composed here from
the checked plan: the planner's own `speech_response_text` is never spoken, so text on a screen
cannot speak to the user in the assistant's voice through it.

What the question names comes from the phone's screen (a node's label) or from the planner (a
payload): untrusted text, bounded and marked as a quotation. An app to open is named by the
user's words only when they name its package (`screen.packages.names_package`); otherwise by its
package name, so the user hears which app will really open. Quoted text is never interpreted,
and is cleaned so it cannot break the sentence: control characters become spaces, invisible
format characters and quote marks (and their look-alikes, so a label cannot close our quote and
speak as us) are dropped, runs of whitespace collapse, and anything past 40 characters is cut
with an ellipsis.

Any language other than en-US is spoken in am-ET, the contract's default language.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from lisan.plans.safe import SafePlan, SafeStep
from lisan.plans.words import reads_destructive
from lisan.screen.nodes import ViewNode, label
from lisan.screen.packages import names_package

ENGLISH = "en-US"
MAX_QUOTED_CHARS = 40
ELLIPSIS = "…"

_QUOTE_LIKE = frozenset('"“”„‟«»‹›〝〞〟＂「」『』″‶')  # noqa: RUF001 (the look-alikes are the point)
_DROPPED_CATEGORIES = frozenset({"Cf", "Cs", "Co"})  # format (bidi, zero-width), surrogate, private
_SPACE_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})

# Per action type: (with a quoted subject, without one). `{}` is the quoted subject.
_ENGLISH = {
    "TAP": ("Tap “{}”", "Tap a button with no label"),
    "TEXT_INPUT": ("Type “{}”", "Type this"),
    "OPEN_APP": ("Open “{}”", "Open this app"),
    "SCROLL": ("Scroll “{}”", "Scroll the screen"),
    "BACK": ("Go back", "Go back"),
    "HOME": ("Go to the home screen", "Go to the home screen"),
}
_AMHARIC = {
    "TAP": ("«{}»ን ልጫን", "ስም የሌለውን ቁልፍ ልጫን"),
    "TEXT_INPUT": ("«{}» ልጻፍ", "ይህን ልጻፍ"),
    "OPEN_APP": ("«{}»ን ልክፈት", "ይህን መተግበሪያ ልክፈት"),
    "SCROLL": ("«{}»ን ልሸብልል", "ገጹን ልሸብልል"),
    "BACK": ("ወደ ኋላ ልመለስ", "ወደ ኋላ ልመለስ"),
    "HOME": ("ወደ መነሻ ገጽ ልሂድ", "ወደ መነሻ ገጽ ልሂድ"),
}
# A TAP whose meaning comes from the message around it: (with a label, without one); the first
# `{}` is the label, the other the message.
_ON_ENGLISH = ("Tap “{}” on “{}”", "Tap the button on “{}”")
_ON_AMHARIC = ("«{1}» ላይ «{0}»ን ልጫን", "«{}» ላይ ያለውን ቁልፍ ልጫን")
_PROCEED = {True: "Say yes to go ahead.", False: "ለመቀጠል «አዎ» ይበሉ።"}
_THEN = {True: ", then ", False: "፣ ከዚያ "}


def _more(count: int, english: bool) -> str:
    if english:
        return f" and {count} more step{'s' if count > 1 else ''}"
    return f" እና ሌሎች {count} ደረጃዎች"


def step_question(
    step: SafeStep, nodes: Mapping[str, ViewNode], package_name: str, language: str
) -> str:
    """A short question naming `step`, then how to go ahead."""
    english = language == ENGLISH
    return f"{_clause(step, nodes, package_name, english)}? {_PROCEED[english]}"


def confirmation_question(plan: SafePlan, nodes: Mapping[str, ViewNode], language: str) -> str:
    """The question for a plan that needs confirmation (the module's docstring says what it
    names)."""
    english = language == ENGLISH
    named = named_steps(plan)
    if named:
        clauses = [_clause(step, nodes, plan.package_name, english) for step in named]
        if english:  # "Type “hi”, then tap “Send”"
            clauses[1:] = [clause[0].lower() + clause[1:] for clause in clauses[1:]]
        return f"{_THEN[english].join(clauses)}? {_PROCEED[english]}"
    first = _clause(plan.steps[0], nodes, plan.package_name, english)
    rest = _more(len(plan.steps) - 1, english) if len(plan.steps) > 1 else ""
    return f"{first}{rest}? {_PROCEED[english]}"


def named_steps(plan: SafePlan) -> list[SafeStep]:
    """The steps the question names, in plan order: every asked step, and before each the last
    text the plan typed (what a send sends)."""
    named: list[int] = []
    typed: int | None = None
    for index, step in enumerate(plan.steps):
        if step.asked:
            if typed is not None and typed not in named:
                named.append(typed)
            named.append(index)
        if step.action_type == "TEXT_INPUT":
            typed = index
    return [plan.steps[index] for index in sorted(set(named))]


def _clause(step: SafeStep, nodes: Mapping[str, ViewNode], package_name: str, english: bool) -> str:
    templates = (_ENGLISH if english else _AMHARIC)[step.action_type]
    subject = _subject(step, nodes, package_name)
    where = quotable(step.context, around_consequence=True) if step.action_type == "TAP" else None
    if where is not None:  # "OK" means what "Remove 12 photos?" says: the user hears both
        on = _ON_ENGLISH if english else _ON_AMHARIC
        return on[0].format(subject, where) if subject is not None else on[1].format(where)
    return templates[0].format(subject) if subject is not None else templates[1]


def quotable(
    text: str | None, limit: int = MAX_QUOTED_CHARS, *, around_consequence: bool = False
) -> str | None:
    """Untrusted text made safe to quote in a spoken sentence; None when nothing is left. Cut
    text keeps its start, or, `around_consequence`, the word that makes it consequential."""
    if text is None:
        return None
    kept: list[str] = []
    for char in unicodedata.normalize("NFC", text):
        category = unicodedata.category(char)
        if category in _SPACE_CATEGORIES:
            kept.append(" ")
        elif category not in _DROPPED_CATEGORIES and char not in _QUOTE_LIKE:
            kept.append(char)
    cleaned = " ".join("".join(kept).split())
    if len(cleaned) > limit:
        start = _window_start(cleaned, limit) if around_consequence else 0
        window = cleaned[start : start + limit]
        # Whole words only, where the window holds more than one: "…summer. Remove them…".
        if start > 0 and cleaned[start - 1] != " " and " " in window:
            window = window[window.index(" ") + 1 :]
        if cleaned[start + limit : start + limit + 1] not in {"", " "} and " " in window:
            window = window[: window.rindex(" ")]
        head = ELLIPSIS if start > 0 else ""
        cleaned = head + window.strip() + ELLIPSIS
    return cleaned or None


def _window_start(text: str, limit: int) -> int:
    """Where a `limit`-long window of `text` starts so that it holds the first word that reads
    consequential (a little context before it), else 0."""
    position = 0
    for word in text.split(" "):
        if reads_destructive(word):
            return max(0, min(position - limit // 4, len(text) - limit))
        position += len(word) + 1
    return 0


def _subject(step: SafeStep, nodes: Mapping[str, ViewNode], package_name: str) -> str | None:
    """What the question names: the text to type, the app to open, else the target's label."""
    node = nodes.get(step.target_node_id) if step.target_node_id is not None else None
    node_label = label(node) if node is not None else None
    candidates: tuple[str | None, ...]
    if step.action_type == "TEXT_INPUT":
        candidates = (step.payload,)  # the field's label is not what gets typed
    elif step.action_type == "OPEN_APP" and names_package(step.payload, package_name):
        candidates = (step.payload, package_name)  # the app as the user said it, else its id
    elif step.action_type == "OPEN_APP":
        candidates = (package_name,)  # a name that is not this app's is not repeated
    else:
        candidates = (node_label, step.payload)
    quoted = (quotable(text, around_consequence=step.is_destructive) for text in candidates)
    return next((q for q in quoted if q is not None), None)
