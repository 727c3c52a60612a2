"""The spoken question before a confirmed plan runs: it names what a yes will do, in the user's
language.

en-US: 'Type “5,000”, then send 5,000 birr to “Abebe Kebede”? Say yes to go ahead.'
am-ET: '«5,000» ልጻፍ፣ ከዚያ ለ«Abebe Kebede» 5,000 ብር ልላክ? ለመቀጠል «አዎ» ይበሉ።'

The phone speaks one question and runs the whole plan on a yes, so the service, not the planner,
decides what it names: every step the rules ask about (`SafeStep.asked`: consequential by the
service's reading, whatever the planner flagged, or acting on a screen the rules never read),
in plan order, at most `rules.MAX_ASKED_STEPS` of them (a plan with more is refused before it
gets here), and every text the plan types before the last of them (an amount, then a note,
then "Send": both are what is sent). A plan with no such step (the planner asked, or the
transcriber gave no confidence) names its first step and how many follow.

A consequential TAP is named by what makes it consequential, from the screen:
- the act, when the message that gave the step its meaning (`SafeStep.context`: a heading, a
  dialog's message) names one the question can say in its own words (send, pay, transfer,
  delete, buy, by English word starts and Amharic spellings: `acts`), and the tapped node names
  what it acts on (a row or an item, not a button: a "Stop" under "Delete the recording?"
  answers it, and neither "OK" nor "Pay now"): 'Send 5,000 birr to “Abebe Kebede”', 'Delete
  “Photo 3”'.
  The verb is the service's own, conjugated in the user's language; the object stays a
  quotation;
- otherwise the node, with the message when there is one: 'Tap “OK” on “Remove 12 photos? This
  can't be…”?';
- the amount, for any act but a deletion, with its currency: the amount the plan typed just
  before (a text that is an amount and nothing else, in the currency typed or, when the screen
  names one currency only, that one), else one the message or the node shows, else the only one
  the screen shows (a fee beside a total names neither): 'Tap “Pay now” (12.50 dollars)'.
  Numbers and currencies are read by plain scanning of words (`amounts`); a number is said as
  written, digits with "," or "." between them, a currency in the question's own word.
A TAP nothing explains (no label that names an act, no message: an "OK" alone, an unlabelled
icon), and a TAP on a label another control shares, says where it is, by the nearest text that
says something (`SafeStep.beside`, found by the rules): 'Tap “OK” beside “Don't ask me
again”?', 'Tap “Delete” beside “Photo 3”?'. A node with no label of its own (a list row) is
named by the first text it holds. A label too long to quote whole is quoted around the word
that makes it consequential, not from its start.

This is the only sentence of variable content the phone speaks, and it is composed here from
the checked plan: the planner's own `speech_response_text` is never spoken, so text on a screen
cannot speak to the user in the assistant's voice through it.

What the question names comes from the phone's screen (a node's label) or from the planner (a
payload): untrusted text, bounded and marked as a quotation (an amount alone is said unquoted:
it holds only digits, "," and ".", and the currency is the service's own word). An app to
open is named by the user's words only when they name its package
(`screen.packages.names_package`); otherwise by its package name, so the user hears which app
will really open. Quoted text is never interpreted,
and is cleaned so it cannot break the sentence: control characters become spaces, invisible
format characters and quote marks (and their look-alikes, so a label cannot close our quote and
speak as us) are dropped, runs of whitespace collapse, and anything past 40 characters is cut
with an ellipsis.

Any language other than en-US is spoken in am-ET, the contract's default language.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

from lisan.plans import acts
from lisan.plans.amounts import Amount, Money, amounts, only_amount
from lisan.plans.safe import SafePlan, SafeStep
from lisan.plans.words import names_no_act, reads_destructive
from lisan.screen.nodes import label
from lisan.screen.packages import names_package
from lisan.screen.viewtree import ViewTree

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
# A TAP nothing explains, or whose label another control shares: where it is. The first `{}`
# is the label, the other the text nearest to it.
_BESIDE_ENGLISH = ("Tap “{}” beside “{}”", "Tap the button beside “{}”")
_BESIDE_AMHARIC = ("ከ«{1}» አጠገብ ያለውን «{0}»ን ልጫን", "ከ«{}» አጠገብ ያለውን ቁልፍ ልጫን")
_PROCEED = {True: "Say yes to go ahead.", False: "ለመቀጠል «አዎ» ይበሉ።"}
_THEN = {True: ", then ", False: "፣ ከዚያ "}


def _more(count: int, english: bool) -> str:
    if english:
        return f" and {count} more step{'s' if count > 1 else ''}"
    return f" እና ሌሎች {count} ደረጃዎች"


def step_question(
    step: SafeStep,
    nodes: ViewTree,
    package_name: str,
    language: str,
    *,
    before: Sequence[SafeStep] = (),
) -> str:
    """A short question naming `step`, then how to go ahead; `before` are the steps the plan
    runs before it (an amount it typed is named with the act)."""
    english = language == ENGLISH
    clause = _clause(step, nodes, package_name, english, before, Money(nodes))
    return f"{clause}? {_PROCEED[english]}"


def confirmation_question(plan: SafePlan, nodes: ViewTree, language: str) -> str:
    """The question for a plan that needs confirmation (the module's docstring says what it
    names)."""
    english = language == ENGLISH
    named, money = named_steps(plan), Money(nodes)
    if named:
        clauses = [
            _clause(plan.steps[at], nodes, plan.package_name, english, plan.steps[:at], money)
            for at in named
        ]
        if english:  # "Type “hi”, then tap “Send”"
            clauses[1:] = [clause[0].lower() + clause[1:] for clause in clauses[1:]]
        return f"{_THEN[english].join(clauses)}? {_PROCEED[english]}"
    first = _clause(plan.steps[0], nodes, plan.package_name, english, (), money)
    rest = _more(len(plan.steps) - 1, english) if len(plan.steps) > 1 else ""
    return f"{first}{rest}? {_PROCEED[english]}"


def named_steps(plan: SafePlan) -> list[int]:
    """Where the steps the question names stand in the plan, in order: every asked step, and
    every text the plan types before the last of them (an amount, then a note, then "Send":
    both are what is sent)."""
    asked = [at for at, step in enumerate(plan.steps) if step.asked]
    if not asked:
        return []
    typed = [
        at for at, step in enumerate(plan.steps[: asked[-1]]) if step.action_type == "TEXT_INPUT"
    ]
    return sorted({*asked, *typed})


def _clause(
    step: SafeStep,
    nodes: ViewTree,
    package_name: str,
    english: bool,
    before: Sequence[SafeStep],
    money: Money,
) -> str:
    templates = (_ENGLISH if english else _AMHARIC)[step.action_type]
    subject = _subject(step, nodes, package_name)
    if step.action_type != "TAP":
        return templates[0].format(subject) if subject is not None else templates[1]
    act = acts.act(step.context) if step.is_destructive else None
    # An amount goes with any act but a deletion: an "OK" beside "Total: 500 ETB" pays it.
    shows_money = step.is_destructive and (act or acts.act(_label(step, nodes))) is not acts.DELETE
    amount = _amount(step, nodes, before, money) if shows_money else None
    if act is not None and subject is not None and _names_an_object(step, subject, nodes):
        return acts.act_clause(act, subject, amount, english)
    where = quotable(step.context, around_consequence=True)
    beside = quotable(step.beside) if where is None else None
    if where is not None:  # "OK" means what "Remove 12 photos?" says: the user hears both
        frames = _ON_ENGLISH if english else _ON_AMHARIC
    elif beside is not None:  # "OK" beside "Don't ask me again": which one, and where
        frames, where = (_BESIDE_ENGLISH if english else _BESIDE_AMHARIC), beside
    if where is not None:
        clause = (
            frames[0].format(subject, where) if subject is not None else frames[1].format(where)
        )
    else:
        clause = templates[0].format(subject) if subject is not None else templates[1]
    if amount is not None and amount.number not in clause:  # "Tap “Pay now” (5,000 birr)"
        clause += f" ({amount.said(english)})"
    return clause


def _names_an_object(step: SafeStep, subject: str, nodes: ViewTree) -> bool:
    """Whether a tapped node names what an act acts on ("Abebe Kebede", "Photo 3"): a row or an
    item, not a button (a "Stop" under "Delete the recording?" answers the message, it is not
    what is deleted), and not the act itself ("Pay now") nor an assent ("OK")."""
    branch = nodes.branch(step.target_node_id) if step.target_node_id is not None else None
    receiver = nodes.receiver(branch) if branch is not None else None
    if receiver is None or receiver.node is None or "button" in receiver.node.class_name.lower():
        return False
    return not names_no_act(subject) and not reads_destructive(subject)


def _amount(
    step: SafeStep, nodes: ViewTree, before: Sequence[SafeStep], money: Money
) -> Amount | None:
    """The amount a consequential tap moves, with its currency: the last amount the plan typed
    before it (in the currency it typed, else the one the screen shows), else one its message
    or its own node shows, else the only one the screen shows (two differing amounts name
    none: a fee beside a total is no total)."""
    typed = next(
        (
            amount
            for earlier in reversed(before)
            if earlier.action_type == "TEXT_INPUT"
            and (amount := only_amount(earlier.payload or "")) is not None
        ),
        None,
    )
    if typed is not None:
        currency = typed.currency or money.read()[1]
        return Amount(typed.number, currency) if currency is not None else None
    branch = nodes.branch(step.target_node_id) if step.target_node_id is not None else None
    near = [step.context or "", *(nodes.texts(branch) if branch is not None else ())]
    for text in near:
        found = next((a for a in amounts(text) if a.currency is not None), None)
        if found is not None:
            return found
    return money.read()[0]


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


def _label(step: SafeStep, nodes: ViewTree) -> str | None:
    """The target's label, else for a node that shows no label of its own (a list row) the
    first text it holds."""
    branch = nodes.branch(step.target_node_id) if step.target_node_id is not None else None
    if branch is None or branch.node is None:
        return None
    return label(branch.node) or next((t for t in nodes.texts(branch) if t.strip()), None)


def _subject(step: SafeStep, nodes: ViewTree, package_name: str) -> str | None:
    """What the question names: the text to type, the app to open, else the target's label
    (`_label`)."""
    node_label = _label(step, nodes) if step.action_type in {"TAP", "SCROLL"} else None
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
