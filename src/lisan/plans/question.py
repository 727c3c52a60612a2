"""The spoken question before a confirmed step runs: it names the step, in the user's language.

en-US: 'Tap “Delete”? Say yes to go ahead.'  am-ET: '«ሰርዝ»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።'

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

from lisan.plans.rules import SafePlan, SafeStep
from lisan.screen.packages import names_package
from lisan.screen.viewtree import ViewNode, label

ENGLISH = "en-US"
MAX_QUOTED_CHARS = 40
ELLIPSIS = "…"

_QUOTE_LIKE = frozenset('"“”„‟«»‹›〝〞〟＂「」『』″‶')  # noqa: RUF001 (the look-alikes are the point)
_DROPPED_CATEGORIES = frozenset({"Cf", "Cs", "Co"})  # format (bidi, zero-width), surrogate, private
_SPACE_CATEGORIES = frozenset({"Cc", "Zl", "Zp"})

# Per action type: (with a quoted subject, without one). `{}` is the quoted subject.
_ENGLISH = {
    "TAP": ("Tap “{}”?", "Tap this?"),
    "TEXT_INPUT": ("Type “{}”?", "Type this?"),
    "OPEN_APP": ("Open “{}”?", "Open this app?"),
    "SCROLL": ("Scroll “{}”?", "Scroll the screen?"),
    "BACK": ("Go back?", "Go back?"),
    "HOME": ("Go to the home screen?", "Go to the home screen?"),
}
_AMHARIC = {
    "TAP": ("«{}»ን ልጫን?", "ይህን ልጫን?"),
    "TEXT_INPUT": ("«{}» ልጻፍ?", "ይህን ልጻፍ?"),
    "OPEN_APP": ("«{}»ን ልክፈት?", "ይህን መተግበሪያ ልክፈት?"),
    "SCROLL": ("«{}»ን ልሸብልል?", "ገጹን ልሸብልል?"),
    "BACK": ("ወደ ኋላ ልመለስ?", "ወደ ኋላ ልመለስ?"),
    "HOME": ("ወደ መነሻ ገጽ ልሂድ?", "ወደ መነሻ ገጽ ልሂድ?"),
}
_PROCEED = {True: "Say yes to go ahead.", False: "ለመቀጠል «አዎ» ይበሉ።"}


def step_question(
    step: SafeStep, nodes: Mapping[str, ViewNode], package_name: str, language: str
) -> str:
    """A short question naming `step`, then how to go ahead."""
    english = language == ENGLISH
    templates = (_ENGLISH if english else _AMHARIC)[step.action_type]
    subject = _subject(step, nodes, package_name)
    question = templates[0].format(subject) if subject is not None else templates[1]
    return f"{question} {_PROCEED[english]}"


def confirmation_question(plan: SafePlan, nodes: Mapping[str, ViewNode], language: str) -> str:
    """The question for a plan that needs confirmation: it names the first destructive step, or,
    when none is (the planner asked, or the transcriber gave no confidence), the first step."""
    step = plan.first_destructive() or plan.steps[0]
    return step_question(step, nodes, plan.package_name, language)


def quotable(text: str | None, limit: int = MAX_QUOTED_CHARS) -> str | None:
    """Untrusted text made safe to quote in a spoken sentence; None when nothing is left."""
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
        cleaned = cleaned[:limit].rstrip() + ELLIPSIS
    return cleaned or None


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
    return next((q for q in map(quotable, candidates) if q is not None), None)
