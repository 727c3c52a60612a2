"""The offline planner: deterministic rules from a transcript of the command grammar and the
reduced view tree to a plan in the remote planner's wire format. Its plans go through the same
safety rules (`lisan.commands.safety`) as any planner's: nothing here is trusted more.

- The verb picks the action (English verb first, Amharic verb last): open an app, tap a label,
  call a name, send, scroll, go back, go home; "type ..." and "send ..." are dictation.
- A spoken label is matched to the screen's nodes with rapidfuzz (users say "send it", "the
  send button"), preferring nodes the action fits (clickable for a tap, editable for typing).
  Two nodes that fit about equally well are a question: the plan names the best one and asks.
- An app is matched to the granted packages by the rule the safety module checks
  (`names_package`).
- What cannot be matched is answered honestly with no steps and a reason
  (`target_not_on_screen`, `app_not_granted`), never guessed.
- Dictated text is typed only after the user hears it read back: its step is marked
  destructive, so the pipeline asks, naming the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz

from lisan.commands.safety import SCROLL_DIRECTIONS, is_package_name, names_package
from lisan.commands.viewtree import ViewNode, ViewTree, label
from lisan.providers.base import Screen
from lisan.providers.local import grammar as g
from lisan.users.models import Locale

SAME_LABEL = 70  # rapidfuzz WRatio from which a spoken label names a node
AMBIGUOUS_WITHIN = 5  # a second node this close to the best makes the plan a question
SEND_LABELS = ("send", "ላክ")
DELETE_LABELS = ("delete", "ሰርዝ")

Plan = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Intent:
    action: str  # open, tap, call, send, delete, scroll, back, home, type, dictate
    words: tuple[str, ...] = ()  # the name, label or text it names
    direction: str | None = None


def plan(transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]) -> Plan:
    words = tuple(transcript.split())
    intent = _amharic(words) if language is Locale.AM_ET else _english(words)
    current = screen.current_package if screen is not None else ""
    if intent is None:
        return _declined(current, "nothing_to_do")
    if intent.action == "dictate":  # offline Amharic cannot transcribe free words
        return _declined(current, "dictation_unsupported")
    if intent.action == "open":
        return _open(intent, apps, current)
    if intent.action == "home":
        return _plan(current, {"action_type": "HOME"})
    if screen is None:  # every other action acts on a screen the planner may not see
        return _declined(current, "app_not_granted")
    tree = ViewTree(screen.view_tree)
    if intent.action == "back":
        return _plan(current, {"action_type": "BACK"})
    if intent.action == "scroll":
        scrollable = next((n for n in tree.values() if "scrollable" in n.flags), None)
        target = scrollable.node_id if scrollable is not None else None
        return _plan(current, {"action_type": "SCROLL", "target_node_id": target,
                               "payload": intent.direction or "down"})  # fmt: skip
    if intent.action == "type":
        return _type(intent, tree, current, then_send=False)
    if intent.action == "send" and intent.words:
        return _type(intent, tree, current, then_send=True)
    spoken = {
        "send": SEND_LABELS,
        "delete": DELETE_LABELS,
    }.get(intent.action, (" ".join(intent.words),))
    found = _find(tree, spoken, prefer="clickable")
    if found is None:
        return _declined(current, "target_not_on_screen")
    node, ambiguous = found
    step: dict[str, Any] = {"action_type": "TAP", "target_node_id": node.node_id}
    if intent.action == "call":
        step["is_destructive"] = True  # a call cannot be taken back
    return _plan(current, step, needs_confirmation=ambiguous)


def _english(words: tuple[str, ...]) -> Intent | None:
    if not words:
        return None
    head, rest = words[0], _content(words[1:])
    verbs = g.ENGLISH_VERBS
    if words in {("go", "back"), ("back",)}:
        return Intent("back")
    if words[:2] == ("go", "home") or words[:2] == ("go", "to"):
        return Intent("home")
    if head in verbs["open"] and rest:
        return Intent("open", rest)
    if head in verbs["tap"] and rest:
        return Intent("tap", rest)
    if head in verbs["call"] and rest:
        return Intent("call", rest)
    if head == "scroll":
        direction = next((w for w in words[1:] if w in SCROLL_DIRECTIONS), None)
        return Intent("scroll", direction=direction)
    if head in g.DICTATION_VERBS - {"send"} and len(words) > 1:
        return Intent("type", words[1:])
    if head == "send":
        text = words[1:]
        return Intent("send", () if text in {(), ("it",)} else text)
    return None


def _amharic(words: tuple[str, ...]) -> Intent | None:
    if not words:
        return None
    verb, rest = words[-1], tuple(w for w in words[:-1] if w not in {g.AMHARIC_OBJECT})
    if words == (g.AMHARIC_BACK,):
        return Intent("back")
    if words[0] == g.AMHARIC_TOWARDS and len(words) > 1:
        if words[1] in {g.AMHARIC_UP, g.AMHARIC_DOWN}:
            return Intent("scroll", direction="up" if words[1] == g.AMHARIC_UP else "down")
        if words[1] == g.AMHARIC_HOME[0]:
            return Intent("home")
    if words == (g.AMHARIC_SEND,):
        return Intent("send")
    if words == (g.AMHARIC_DELETE,):
        return Intent("delete")
    if words == (g.AMHARIC_WRITE,):
        return Intent("dictate")
    if verb == g.AMHARIC_OPEN and rest:
        return Intent("open", rest)
    if verb in g.AMHARIC_TAP and rest:
        return Intent("tap", rest)
    if verb == g.AMHARIC_CALL and rest:
        return Intent("call", tuple(w for w in rest if w != g.AMHARIC_TO))
    return None


def _content(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in g.ENGLISH_FILLERS)


def _open(intent: Intent, apps: Sequence[str], current: str) -> Plan:
    name = " ".join(intent.words)
    package = next((p for p in apps if names_package(name, p)), None)
    if package is None:
        return _declined(current, "app_not_granted")
    return _plan(package, {"action_type": "OPEN_APP", "payload": name})


def _type(intent: Intent, tree: ViewTree, current: str, *, then_send: bool) -> Plan:
    field = next((n for n in tree.values() if "editable" in n.flags), None)
    if field is None:
        return _declined(current, "target_not_on_screen")
    # Read back before typing: dictation is weak, and the words are the user's to check.
    steps = [{"action_type": "TEXT_INPUT", "target_node_id": field.node_id,
              "payload": " ".join(intent.words), "is_destructive": True}]  # fmt: skip
    if then_send:
        found = _find(tree, SEND_LABELS, prefer="clickable")
        if found is None:
            return _declined(current, "target_not_on_screen")
        steps.append({"action_type": "TAP", "target_node_id": found[0].node_id})
    return _plan(current, *steps)


def _find(tree: ViewTree, spoken: Sequence[str], *, prefer: str) -> tuple[ViewNode, bool] | None:
    """The node whose label best matches any of the spoken forms, and whether another node
    matches about as well (ambiguous). Nodes with the `prefer` flag win a tie."""
    scored: list[tuple[float, ViewNode]] = []
    for node in tree.values():
        shown = label(node)
        if shown is None or "disabled" in node.flags:
            continue
        text = " ".join(g.amharic_words(shown)) or shown.lower()
        score = max(fuzz.WRatio(form, text) for form in spoken)
        if score >= SAME_LABEL:
            scored.append((score + (1 if prefer in node.flags else 0), node))
    if not scored:
        return None
    scored.sort(key=lambda pair: pair[0], reverse=True)
    best_score, best = scored[0]
    ambiguous = any(
        score >= best_score - AMBIGUOUS_WITHIN and label(node) != label(best)
        for score, node in scored[1:]
    )
    return best, ambiguous


def _plan(package: str, *steps: dict[str, Any], needs_confirmation: bool = False) -> Plan:
    return {
        "package_name": package,
        "steps": [
            {"target_node_id": None, "payload": None, "is_destructive": False, **step}
            for step in steps
        ],
        "needs_confirmation": needs_confirmation,
        "speech_response_text": None,
    }


def _declined(package: str, reason: str) -> Plan:
    return {
        "package_name": package if is_package_name(package) else "",
        "steps": [],
        "needs_confirmation": False,
        "speech_response_text": None,
        "reason": reason,
    }
