"""The offline planner: deterministic rules from a transcript (the command grammar's, or a remote
transcriber's everyday words: `intents`) and the reduced view tree to a plan in the remote
planner's wire format. Its plans go through the same safety rules (`lisan.plans.rules`) as any
planner's: nothing here is trusted more.

- The verb picks the action (`intents`): open an app, tap a label, call a name, send, delete,
  search, scroll, go back, go home, set a switch on or off (a tap, unless it already shows
  that state); "type ...", "send ..." and "type ... and send" are dictation. Words with no
  verb that are a control's whole label ("Cancel") tap it.
- A spoken label, or a fixed verb's word ("send it" is a "send" button, ሰርዝ a ሰርዝ one), names
  a node when it is a whole word, or run of whole words, of the node's label, both folded by
  `core.text` (look-alike letters, invisible characters, camelCase): "send" names "Send" and
  "Send message", never "Unsend" or "Sent". A label that equals what was said beats one that
  holds it among other words; nodes the action fits (clickable for a tap) win a tie. In Amharic
  a name may carry its object marker or "to" ("አበበን", "ለአበበ"): it is also read without.
- In Amharic, an English label may be said as it sounds, in Ge'ez letters ("ሲስተም" for
  "System"): a tap or a "turn on" whose words name no label in letters names the one control
  whose English label (or, for a switch, description) sounds like them (`sounds`), always
  asked; when the labels that sound so belong to two controls, it is declined.
- Anything less certain is a question, never an act: the plan names its best guess and asks
  (`needs_confirmation`, so the answer is CONFIRMATION_REQUIRED) when the only nodes left merely
  look like what was said (rapidfuzz, "Delegate" for "delete"), or when two nodes with
  different labels fit equally well.
- "search X" types X into the screen's one search field (a text field whose label, id or class
  says search); with none, or two, it declines: a message field is no search field, and the
  question "Type “X”?" could not say which field. "search X" that is a control's whole label
  ("Search contacts") names that control.
- "delete X" taps the control whose label says the verb and X ("Delete account"), else the one
  control that says delete, remove or clear in X's own row of a list (`rows.row_control`); it is
  always asked (the plan rules ask for any delete-like act too). Anything else is declined:
  tapping X itself would open it, not delete it.
- An app is matched to the granted packages by the rule the safety module checks
  (`names_package`); a name that two granted packages answer to is declined, never guessed. A
  launcher icon is never tapped for "open": what it opens is a package the screen does not
  show, so its grant could not be checked (and the plan rules refuse any tap on an ungranted
  launcher).
- What cannot be matched is answered honestly with no steps and a reason (a `Decline`:
  `target_not_on_screen`, `app_not_granted`), never guessed.
- Dictated text is typed only after the user hears it read back: its step is marked
  destructive, so the pipeline asks, naming the text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lisan.core.locale import Locale
from lisan.core.text import fold, name_words
from lisan.providers.base import Decline, Screen
from lisan.providers.local import vocabulary as v
from lisan.providers.local.intents import Intent, bare_words, intent_of
from lisan.providers.local.labels import Found, find, says
from lisan.providers.local.rows import row_control
from lisan.providers.local.sounds import by_sound
from lisan.screen.nodes import ViewNode, is_checkable, label
from lisan.screen.packages import GENERIC_SEGMENTS, is_package_name, names_package
from lisan.screen.viewtree import ViewTree

__all__ = ["Intent", "Plan", "intent_of", "plan"]

Plan = dict[str, Any]


def plan(transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]) -> Plan:
    intent = intent_of(transcript, language)
    current = screen.current_package if screen is not None else ""
    if intent is None:
        return _bare_label(transcript, screen, current, language)
    if intent.action == "dictate":  # offline Amharic cannot transcribe free words
        return _declined(current, Decline.DICTATION_UNSUPPORTED)
    if intent.action == "open":
        return _open(intent, apps, current, language)
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
    if intent.action == "search":
        return _search(intent, tree, current, language)
    if intent.action == "delete":
        return _delete(intent, tree, current, language)
    if intent.action == "set":
        return _set(intent, tree, current, language)
    spoken = v.SEND_LABELS if intent.action == "send" else _names(intent, language)
    found = find(tree, spoken, prefer="clickable")
    if found is None and intent.action == "tap" and language is Locale.AM_ET:
        found = _sounded(tree, _names(intent, language))
    if intent.action == "call" and (
        intent.words in v.ENGLISH_CALL_THIS
        or (found is not None and found.whole and not _takes_tap(tree, found.node))
    ):
        # "call him", or "call Bob" where Bob is the page's title: the page's call control.
        found = _call_control(tree)
    if found is None or (intent.verb is not None and not found.whole):
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
    step: dict[str, Any] = {"action_type": "TAP", "target_node_id": found.node.node_id}
    if intent.action == "call":
        step["is_destructive"] = True  # a call cannot be taken back
    return _plan(current, step, needs_confirmation=not found.certain)


def _bare_label(transcript: str, screen: Screen | None, current: str, language: Locale) -> Plan:
    """A transcript that is no command but a control's whole label ("Cancel.", "Weekly view"),
    or such a label and "it" ("Rotate it"), taps that control: only an exact, certain match of
    a control, since any word said could otherwise tap something. In Amharic, an answer to a
    dialog ("አዎ", "እሺ") names its English button ("Yes", "OK")."""
    words = bare_words(transcript, language)
    if screen is None or not screen.granted or not words:
        return _declined(current, Decline.NOTHING_TO_DO)
    forms = [" ".join(words)]
    if len(words) > 1 and (words[-1].casefold(),) in v.ENGLISH_IT:
        forms.append(" ".join(words[:-1]))
    if language is Locale.AM_ET:
        answers = {fold(said): labels for said, labels in v.AMHARIC_ANSWERS.items()}
        forms += answers.get(fold(" ".join(words)), ())
    tree = ViewTree(screen.view_tree)
    for form in forms:
        found = find(tree, [form], prefer="clickable")
        if found is not None and found.exact and found.certain and _takes_tap(tree, found.node):
            return _plan(current, {"action_type": "TAP", "target_node_id": found.node.node_id})
    return _declined(current, Decline.NOTHING_TO_DO)


def _takes_tap(tree: ViewTree, node: ViewNode) -> bool:
    branch = tree.branch(node.node_id)
    return branch is not None and tree.receiver(branch) is not None


def _set(intent: Intent, tree: ViewTree, current: str, language: Locale) -> Plan:
    """A "turn on X": a tap on X's switch, unless it already shows the state asked for (a tap
    would undo it). Its control is the node labelled X, or a switch described as X (a quick
    settings tile shows "Off" and is described "Airplane mode"); in Amharic, also one whose
    English label or description sounds like X (asked)."""
    name = " ".join(intent.words)
    found = find(tree, [name], prefer="clickable")
    if found is None or not found.whole:
        found = _described_switch(tree, name) or found
    if (found is None or not found.whole) and language is Locale.AM_ET:
        found = _sounded(tree, [name], texts=lambda node: (label(node), node.desc)) or found
    if found is None or not found.whole or not _takes_tap(tree, found.node):
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)  # a look-alike is no switch
    state = _switch_state(tree, found.node)
    if state is not None and state == (intent.direction == "on"):
        return _declined(current, Decline.NOTHING_TO_DO)  # already so
    step = {"action_type": "TAP", "target_node_id": found.node.node_id}
    return _plan(current, step, needs_confirmation=not found.certain)


def _sounded(
    tree: ViewTree,
    names: Sequence[str],
    *,
    texts: Callable[[ViewNode], Iterable[str | None]] = lambda node: (label(node),),
) -> Found | None:
    """The one control whose English label sounds like one of the Amharic `names`
    (`sounds.by_sound`): whole, as a switch must be, but never certain, so it is asked."""
    node = by_sound(tree, [name.split() for name in names], texts=texts)
    return Found(node, certain=False) if node is not None else None


def _described_switch(tree: ViewTree, name: str) -> Found | None:
    wanted = fold(name).split()
    switches = [n for n in tree.values() if is_checkable(n) and "disabled" not in n.flags
                and n.desc is not None and fold(n.desc).split() == wanted]  # fmt: skip
    return Found(switches[0], certain=True, exact=True) if len(switches) == 1 else None


def _switch_state(tree: ViewTree, node: ViewNode) -> bool | None:
    """On or off, as the one switch or checkbox in what a tap on `node` acts on shows it; None
    when it holds none, or several."""
    branch = tree.branch(node.node_id)
    receiver = tree.receiver(branch) if branch is not None else None
    if receiver is None:
        return None
    inside = [b.node for b in tree.branches() if b.node is not None and is_checkable(b.node)
              and (b.start == receiver.start or tree.contains(receiver, b))]  # fmt: skip
    return "checked" in inside[0].flags if len(inside) == 1 else None


def _call_control(tree: ViewTree) -> Found | None:
    """The screen's one control whose label says call or dial ("Dial number", "Call contact");
    None when there is none, or more than one."""
    controls = [n for n in tree.values() if "disabled" not in n.flags
                and says((label(n),), v.CALL_WORDS) and _takes_tap(tree, n)]  # fmt: skip
    return Found(controls[0], certain=True) if len(controls) == 1 else None


def _names(intent: Intent, language: Locale) -> list[str]:
    """How the words may name a label: as said, and in Amharic also without the object marker
    fused to the last word ("አበበን") and, for a call, the "to" fused to the first ("ለአበበ")."""
    words = list(intent.words)
    forms = [words]
    if language is not Locale.AM_ET and len(words) > 1 and words[-1] in v.ENGLISH_PLACE_WORDS:
        forms.append(words[:-1])  # "the news tab" is the tab "News"
    if language is Locale.AM_ET and words:
        firsts = [words[0]]
        if intent.action == "call":
            firsts.append(_without_start(words[0], v.AMHARIC_TO))
        for first in firsts:
            said = [first, *words[1:]]
            forms += [said, [*said[:-1], _without_end(said[-1], v.AMHARIC_OBJECT)]]
    return list(dict.fromkeys(" ".join(form) for form in forms if form))


def _without_end(word: str, ending: str) -> str:
    """`word` without a fused `ending`, when at least two letters are left."""
    return word[: -len(ending)] if word.endswith(ending) and len(word) - len(ending) >= 2 else word


def _without_start(word: str, start: str) -> str:
    return word[len(start) :] if word.startswith(start) and len(word) - len(start) >= 2 else word


def _open(intent: Intent, apps: Sequence[str], current: str, language: Locale) -> Plan:
    names = _names(intent, language)
    matching = [p for p in apps if any(names_package(name, p) for name in names)]
    if len(matching) > 1:  # "google" for Maps and Photos: one name, not one app
        exact = [p for p in matching if any(_is_segment(name, p) for name in names)]
        matching = exact if len(exact) == 1 else []
        if not matching:
            return _declined(current, Decline.NOTHING_TO_DO)
    if not matching:
        return _declined(current, Decline.APP_NOT_GRANTED)
    package = matching[0]
    name = next(name for name in names if names_package(name, package))
    return _plan(package, {"action_type": "OPEN_APP", "payload": name})


def _is_segment(name: str, package: str) -> bool:
    """Whether the name, its words run together, is one of the package's segments exactly."""
    joined = "".join(word for word in name_words(name) if word not in GENERIC_SEGMENTS)
    return joined in package.lower().split(".")


def _type(intent: Intent, tree: ViewTree, current: str, *, then_send: bool) -> Plan:
    if then_send:
        # What is sent is what the message field holds: with two fields ("To" and the message)
        # the text could land in the wrong one and something else be sent.
        fields = [n for n in _fields(tree) if not _is_search(n)]
        field = fields[0] if len(fields) == 1 else None
    else:
        field = next((n for n in tree.values() if "editable" in n.flags), None)
    if field is None:
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
    # Read back before typing: dictation is weak, and the words are the user's to check.
    steps = [_typed(field, intent.words)]
    if then_send:
        found = find(tree, v.SEND_LABELS, prefer="clickable")
        # The question reads back the text, not the button: a send button only like "send"
        # ("Unsend", "Sent") would be tapped unasked.
        if found is None or not found.certain:
            return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
        steps.append({"action_type": "TAP", "target_node_id": found.node.node_id})
    return _plan(current, *steps)  # asked anyway: the typed text is read back


def _typed(field: ViewNode, words: Sequence[str]) -> dict[str, Any]:
    return {"action_type": "TEXT_INPUT", "target_node_id": field.node_id,
            "payload": " ".join(words), "is_destructive": True}  # fmt: skip


def _fields(tree: ViewTree) -> list[ViewNode]:
    return [n for n in tree.values() if "editable" in n.flags and "disabled" not in n.flags]


def _is_search(node: ViewNode) -> bool:
    """A text field for a search: its label, id or class says so ("Search contacts",
    `search_src_text`, `SearchView$SearchAutoComplete`, ፍለጋ)."""
    return says((node.text, node.desc, node.node_id, node.class_name), v.SEARCH_WORDS)


def _search(intent: Intent, tree: ViewTree, current: str, language: Locale) -> Plan:
    query = " ".join(intent.words)
    verb = intent.verb or ""
    phrase = f"{query} {verb}" if language is Locale.AM_ET else f"{verb} {query}"
    named = find(tree, [phrase], prefer="editable")
    if named is not None and named.whole:
        # "search contacts" beside a "Search contacts" field names the field (a tap only focuses
        # it); beside any other control it might mean that control or a search: asked.
        is_field = "editable" in named.node.flags and _is_search(named.node)
        step = {"action_type": "TAP", "target_node_id": named.node.node_id}
        return _plan(current, step, needs_confirmation=not (is_field and named.certain))
    fields = [n for n in _fields(tree) if _is_search(n)]
    if len(fields) != 1:
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
    return _plan(current, _typed(fields[0], intent.words))  # read back, as any dictation


def _delete(intent: Intent, tree: ViewTree, current: str, language: Locale) -> Plan:
    verb = intent.verb or v.AMHARIC_DELETE
    controls = v.DELETE_LABELS if verb in v.DELETE_LABELS else (verb,)
    if not intent.words:  # "delete it", ሰርዝ: the control that says the verb
        found = find(tree, controls, prefer="clickable")
        if found is None:
            return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
        step = {"action_type": "TAP", "target_node_id": found.node.node_id}
        return _plan(current, step, needs_confirmation=not found.certain)
    items = _items(intent, language)
    english = language is not Locale.AM_ET
    phrases = [f"{verb} {item}" if english else f"{item} {verb}" for item in items]
    named = find(tree, phrases, prefer="clickable")
    if named is not None and named.whole:  # "Delete account", "Clear history", "ታሪክ ሰርዝ"
        step = {"action_type": "TAP", "target_node_id": named.node.node_id}
        return _plan(current, step, needs_confirmation=not named.certain)
    item = find(tree, items, prefer="clickable")
    control = row_control(tree, item.node) if item is not None and item.certain else None
    if control is None and item is None and english and intent.words[0] in ("this", "that"):
        # "delete this photo" on the photo's own page: what the page shows, as "delete it".
        return _delete(Intent("delete", (), verb=intent.verb), tree, current, language)
    if control is None:
        return _declined(current, Decline.TARGET_NOT_ON_SCREEN)
    return _plan(current, {"action_type": "TAP", "target_node_id": control.node_id},
                 needs_confirmation=True)  # fmt: skip


def _items(intent: Intent, language: Locale) -> list[str]:
    """How "delete X" may name X: as said, without the words around a name ("the", "my"), and
    without what it is removed from ("milk from the cart")."""
    if language is Locale.AM_ET:
        return _names(intent, language)
    words = intent.words
    forms = [words, tuple(w for w in words if w not in v.ENGLISH_FILLERS)]
    if "from" in words:
        before = words[: words.index("from")]
        forms += [before, tuple(w for w in before if w not in v.ENGLISH_FILLERS)]
    return list(dict.fromkeys(" ".join(form) for form in forms if form))


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
