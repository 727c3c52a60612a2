"""The offline planner: deterministic rules from a transcript of the command grammar and the
reduced view tree to a plan in the remote planner's wire format. Its plans go through the same
safety rules (`lisan.plans.rules`) as any planner's: nothing here is trusted more.

- The verb picks the action (English verb first, Amharic verb last): open an app, tap a label,
  call a name, send, scroll, go back, go home; "type ..." and "send ..." are dictation.
- A spoken label, or a fixed verb's word ("send it" is a "send" button, ሰርዝ a ሰርዝ one), names
  a node when it is a whole word, or run of whole words, of the node's label, both folded by
  `core.text` (look-alike letters, invisible characters, camelCase): "send" names "Send" and
  "Send message", never "Unsend" or "Sent". A label that equals what was said beats one that
  holds it among other words; nodes the action fits (clickable for a tap) win a tie.
- Anything less certain is a question, never an act: the plan names its best guess and asks
  (`needs_confirmation`, so the answer is CONFIRMATION_REQUIRED) when the only nodes left merely
  look like what was said (rapidfuzz, "Delegate" for "delete"), or when two nodes with
  different labels fit equally well.
- An app is matched to the granted packages by the rule the safety module checks
  (`names_package`).
- What cannot be matched is answered honestly with no steps and a reason (a `Decline`:
  `target_not_on_screen`, `app_not_granted`), never guessed.
- Dictated text is typed only after the user hears it read back: its step is marked
  destructive, so the pipeline asks, naming the text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lisan.core.locale import Locale
from lisan.providers.base import Decline, Screen
from lisan.providers.local import vocabulary as v
from lisan.providers.local.labels import find
from lisan.screen.actions import SCROLL_DIRECTIONS
from lisan.screen.packages import is_package_name, names_package
from lisan.screen.viewtree import ViewTree

Plan = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Intent:
    action: str  # open, tap, call, send, delete, scroll, back, home, type, dictate
    words: tuple[str, ...] = ()  # the name, label or text it names
    direction: str | None = None


def intent_of(transcript: str, language: Locale) -> Intent | None:
    """What a transcript of the command grammar asks for; None for nothing the planner reads.
    Two transcripts that ask for the same thing ("press the save button", "tap save") have the
    same intent."""
    words = tuple(transcript.split())
    return _amharic(words) if language is Locale.AM_ET else _english(words)


def plan(transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]) -> Plan:
    intent = intent_of(transcript, language)
    current = screen.current_package if screen is not None else ""
    if intent is None:
        return _declined(current, Decline.NOTHING_TO_DO)
    if intent.action == "dictate":  # offline Amharic cannot transcribe free words
        return _declined(current, Decline.DICTATION_UNSUPPORTED)
    if intent.action == "open":
        return _open(intent, apps, current)
    if intent.action == "home":
        return _plan(current, {"action_type": "HOME"})
    if screen is None or not screen.granted:  # every other action acts on that screen
        return _declined(current, Decline.APP_NOT_GRANTED)
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
        "send": v.SEND_LABELS,
        "delete": v.DELETE_LABELS,
    }.get(intent.action, (" ".join(intent.words),))
    found = find(tree, spoken, prefer="clickable")
    if found is None:
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
    step: dict[str, Any] = {"action_type": "TAP", "target_node_id": found.node.node_id}
    if intent.action == "call":
        step["is_destructive"] = True  # a call cannot be taken back
    return _plan(current, step, needs_confirmation=not found.certain)


def _english(words: tuple[str, ...]) -> Intent | None:
    if not words:
        return None
    head, rest = words[0], _content(words[1:])
    verbs = v.ENGLISH_VERBS
    if words in v.ENGLISH_BACK:
        return Intent("back")
    if words in v.ENGLISH_HOME:
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
    if head in v.DICTATION_VERBS - {"send"} and len(words) > 1:
        return Intent("type", words[1:])
    if head == "send":
        text = words[1:]
        return Intent("send", () if text in {(), ("it",)} else text)
    return None


def _amharic(words: tuple[str, ...]) -> Intent | None:
    if not words:
        return None
    verb, rest = words[-1], tuple(w for w in words[:-1] if w not in {v.AMHARIC_OBJECT})
    if words == (v.AMHARIC_BACK,):
        return Intent("back")
    if words[0] == v.AMHARIC_TOWARDS and len(words) > 1:
        if words[1] in {v.AMHARIC_UP, v.AMHARIC_DOWN}:
            return Intent("scroll", direction="up" if words[1] == v.AMHARIC_UP else "down")
        if words[1] == v.AMHARIC_HOME[0]:
            return Intent("home")
    if words == (v.AMHARIC_SEND,):
        return Intent("send")
    if words == (v.AMHARIC_DELETE,):
        return Intent("delete")
    if words == (v.AMHARIC_WRITE,):
        return Intent("dictate")
    if verb == v.AMHARIC_OPEN and rest:
        return Intent("open", rest)
    if verb in v.AMHARIC_TAP and rest:
        return Intent("tap", rest)
    if verb == v.AMHARIC_CALL and rest:
        return Intent("call", tuple(w for w in rest if w != v.AMHARIC_TO))
    return None


def _content(words: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(w for w in words if w not in v.ENGLISH_FILLERS)


def _open(intent: Intent, apps: Sequence[str], current: str) -> Plan:
    name = " ".join(intent.words)
    package = next((p for p in apps if names_package(name, p)), None)
    if package is None:
        return _declined(current, Decline.APP_NOT_GRANTED)
    return _plan(package, {"action_type": "OPEN_APP", "payload": name})


def _type(intent: Intent, tree: ViewTree, current: str, *, then_send: bool) -> Plan:
    field = next((n for n in tree.values() if "editable" in n.flags), None)
    if field is None:
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
    # Read back before typing: dictation is weak, and the words are the user's to check.
    steps = [{"action_type": "TEXT_INPUT", "target_node_id": field.node_id,
              "payload": " ".join(intent.words), "is_destructive": True}]  # fmt: skip
    if then_send:
        found = find(tree, v.SEND_LABELS, prefer="clickable")
        # The question reads back the text, not the button: a send button only like "send"
        # ("Unsend", "Sent") would be tapped unasked.
        if found is None or not found.certain:
            return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
        steps.append({"action_type": "TAP", "target_node_id": found.node.node_id})
    return _plan(current, *steps)  # asked anyway: the typed text is read back


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


def _declined(package: str, reason: Decline) -> Plan:
    return {
        "package_name": package if is_package_name(package) else "",
        "steps": [],
        "needs_confirmation": False,
        "speech_response_text": None,
        "reason": reason,
    }
