"""The plan-safety rules, checked in code whatever the planner says (spec, general rules 4 to 6).

The planner reads untrusted screen text (and, offline, is our own rules over it): its plan is a
claim to check, never an order. `validate_plan` turns the raw JSON plan into a `SafePlan`, or
raises `PlanRejected` whose `reason` is the REJECTED command's `reprompt_reason`; a rejected plan
never reaches the phone. Every planner's plan passes through here: the rules live in one place.

Checks, in this order (the first failure is the reason reported):

1. Shape (`invalid_plan`): the plan is an object; `package_name` is a string; `steps` is a
   non-empty list of objects; every `payload` is a string or null/absent; `needs_confirmation`,
   when present, is a boolean; `speech_response_text`, when present, is a string or null.
2. Each step, in order; within a step:
   a. `action_type` is one of the six, spelled exactly (`action_not_allowed`);
   b. `is_destructive` is present and a boolean: absent is never assumed safe, and the string
      `"false"` is not a boolean (`missing_destructive_flag`);
   c. `target_node_id`, when not null, is a string naming exactly one node of the view tree
      (`unknown_target_node`): an id on two node lines names none, since a line injected through
      screen text could otherwise decide what the id points at;
   d. a `TEXT_INPUT` step carries a string payload, and a `SCROLL` payload is a direction (`up`,
      `down`, `left`, `right`) or absent (`invalid_plan`);
   e. a `TAP` or `TEXT_INPUT` target is not `{disabled}` (`target_disabled`).
3. At most `MAX_STEPS` steps (`too_many_steps`).
4. Where each step acts, in order, from the screen the phone sent:
   - a step that names a target node acts in `current_package`, the app whose screen that is,
     and only while the plan is still on that screen: after an `OPEN_APP` or a `HOME` the ids
     belong to a screen that is gone;
   - `OPEN_APP` acts in the app it opens: the plan's `package_name` (a payload that is a package
     name must be that one); it is then the app in front;
   - `HOME` acts in no app: the launcher is then in front, which no grant names;
   - `TAP`, `SCROLL`, `TEXT_INPUT` and `BACK` act in the app in front, target or not: `BACK`
     navigates, and a target-less `SCROLL` or `TEXT_INPUT` moves or types into, whatever app
     is in front.
   The plan's `package_name` must be granted, and so must the app every step acts in
   (`app_not_granted`; the launcher, or an empty `current_package`, never is); every step must
   act in the plan's `package_name` (`app_mismatch`): a plan acts in one app; no target may
   name a node of a screen the plan has left (`stale_target`). Reported in that order. So from
   any screen a plan may go `HOME` or `OPEN_APP` a granted app, and only a plan that starts
   there (after any `HOME`) acts in another app than the one in front. A plan that acts in no
   app (only `HOME`) names a granted app or the app it leaves. These checks come last, so an
   unknown action is reported as what it is even in an app never granted.

Keys the rules do not know are dropped, not echoed: only what `SafeStep` holds reaches the phone.
`speech_response_text` is checked for shape and otherwise ignored: what the phone speaks is the
service's own (see `speech.py`), never the words of a planner that read the screen.

Independence from the planner: a step is destructive (a spoken confirmation before it runs)
when the planner says so, and also
- when its target node, or any node or line of text under the target, reads like a
  consequential action (`DESTRUCTIVE_ENGLISH`, `DESTRUCTIVE_AMHARIC`): a "Delete account" label
  on the child of a clickable row makes tapping the row destructive;
- when it opens an app whose spoken name the service cannot tie to the package it opens
  (`names_package`): the phone must never open one app while the user hears another's name.
This only ever upgrades a step, never downgrades the planner's `true`. Labels are compared on
their confusables skeleton (`lookalikes`), so look-alike letters, invisible characters and
combining marks cannot hide a word. English words match at the start of a word, so "Deleted
items", "Payments" and "Sender" count too: a needless question is the safe side of a wrong
guess. Amharic words match anywhere, because Amharic attaches object markers and clitics to the
verb ("ላክለት" holds "ላክ"); the price is the odd false alarm ("ግዛት", region, holds "ግዛ").
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, TypeGuard

from anyascii import anyascii
from rapidfuzz import fuzz

from lisan.commands.lookalikes import fold, folds
from lisan.commands.viewtree import ViewNode, ViewTree

ACTION_TYPES = frozenset({"TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"})
MAX_STEPS = 20
SCROLL_DIRECTIONS = frozenset({"up", "down", "left", "right"})
DISABLED_TARGET_ACTIONS = frozenset({"TAP", "TEXT_INPUT"})

PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*(?:[.][A-Za-z][A-Za-z0-9_]*)+")
PACKAGE_NAME_LENGTH = range(3, 256)

# English, by what a reasonable person wants confirmed; a space also matches "-", "_" or none.
DESTRUCTIVE_ENGLISH = (
    # money
    "pay", "buy", "purchase", "order", "checkout", "check out", "transfer", "withdraw", "sell",
    "cash out", "donate", "top up", "recharge", "subscribe", "upgrade", "renew", "bid",
    # deleting and clearing
    "delete", "remove", "erase", "discard", "trash", "empty trash", "empty bin", "clear", "wipe",
    "reset",
    # sending, posting, forwarding
    "send", "post", "publish", "share", "forward", "repost", "retweet", "tweet", "upload",
    "broadcast", "submit",
    # installing
    "install", "uninstall",
    # accepting and allowing
    "accept", "allow", "agree", "grant", "permit", "approve", "authorize", "authorise", "confirm",
    # blocking and reporting
    "block", "report", "unfollow", "unfriend",
    # the account
    "deactivate", "close account", "close my account", "unsubscribe", "unlink", "leave",
    "sign out", "sign off", "log out", "log off",
    # calling
    "call", "dial",
)  # fmt: skip
# Amharic: imperatives as Android apps label buttons (masculine, then the polite form), and a
# few nouns buttons use; matched anywhere (see the module's docstring).
DESTRUCTIVE_AMHARIC = (
    # money
    "ክፈል", "ይክፈሉ", "ክፍያ",  # pay, payment
    "ግዛ", "ይግዙ", "ግዢ",  # buy, purchase
    "እዘዝ", "ይዘዙ",  # order
    "አስተላልፍ", "ያስተላልፉ",  # transfer, forward
    "አውጣ", "ያውጡ",  # withdraw (take out)
    "ሽጥ", "ይሽጡ",  # sell
    "ለግስ", "ይለግሱ", "ልገሳ",  # donate, donation
    "ሙላ", "ይሙሉ",  # top up (fill)
    "ተመዝገብ", "ይመዝገቡ",  # subscribe, register
    # deleting and clearing
    "ሰርዝ", "ይሰርዙ",  # delete
    "አጥፋ", "ያጥፉ",  # erase, delete
    "ደምስስ", "ይደምስሱ",  # erase
    "አስወግድ", "ያስወግዱ",  # remove
    "አጽዳ", "ያጽዱ",  # clear
    "ዳግም አስጀምር",  # reset
    # sending, posting
    "ላክ", "ይላኩ",  # send
    "ለጥፍ", "ይለጥፉ",  # post (also paste)
    "አትም", "ያትሙ",  # publish
    "አጋራ", "ያጋሩ",  # share
    "አስገባ", "ያስገቡ",  # submit
    # installing
    "ጫን", "ይጫኑ",  # install (also press)
    "አራግፍ", "ያራግፉ",  # uninstall
    # accepting and allowing
    "ተቀበል", "ይቀበሉ",  # accept
    "ፍቀድ", "ይፍቀዱ",  # allow
    "እስማማለሁ", "ተስማማ", "ይስማሙ",  # agree
    "አረጋግጥ", "ያረጋግጡ",  # confirm
    # blocking and reporting
    "አግድ", "ያግዱ",  # block
    "ሪፖርት",  # report
    # the account
    "አቦዝን", "ያቦዝኑ",  # deactivate
    "መለያ ዝጋ", "መለያውን ዝጋ",  # close account
    "አቋርጥ", "ያቋርጡ",  # unsubscribe, discontinue
    "ልቀቅ", "ይልቀቁ",  # leave (a group)
    "ውጣ", "ይውጡ",  # sign out, leave
    # calling
    "ደውል", "ይደውሉ",  # call
)  # fmt: skip


def _phrase(words: str, joiner: str) -> str:
    return joiner.join(re.escape(fold(word)) for word in words.split())


# Both lists folded as labels are (`lookalikes.fold`), so each side reads as it looks. The
# lookaheads let the engine skip a position before it tries a hundred alternatives there: a
# 64 KiB screen is read in a few milliseconds.
DESTRUCTIVE_WORDS = re.compile(
    r"\b(?=[a-z])(?:"
    + "|".join(_phrase(words, r"[\s_-]*") for words in DESTRUCTIVE_ENGLISH)
    + r")|(?=[\u1200-\u137f])(?:"
    + "|".join(_phrase(words, r"\s*") for words in DESTRUCTIVE_AMHARIC)
    + ")"
)

# Package segments that name no app ("com", "android", ...): a spoken name is not tied by them.
GENERIC_SEGMENTS = frozenset(
    {"com", "org", "net", "io", "co", "et", "android", "app", "apps", "mobile", "www", "the"}
)
SAME_NAME = 80  # rapidfuzz ratio from which a spoken word names a package segment
_APART = "\x00"  # keeps labels apart in one string: neither a word nor a space character
_NAME_WORD = re.compile(r"[a-z0-9]+")


class PlanRejected(Exception):
    """The plan broke a rule; `reason` is a stable snake_case code for `reprompt_reason`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class SafeStep:
    action_type: str
    target_node_id: str | None
    payload: str | None
    is_destructive: bool


@dataclass(frozen=True, slots=True)
class SafePlan:
    package_name: str
    steps: tuple[SafeStep, ...]
    planner_asked_confirmation: bool

    def requires_confirmation(self, *, transcriber_confident: bool) -> bool:
        """Any destructive step, the planner asked, or the transcriber gave no confidence."""
        return (
            self.first_destructive() is not None
            or self.planner_asked_confirmation
            or not transcriber_confident
        )

    def first_destructive(self) -> SafeStep | None:
        return next((step for step in self.steps if step.is_destructive), None)


def is_package_name(value: object) -> TypeGuard[str]:
    return (
        isinstance(value, str)
        and len(value) in PACKAGE_NAME_LENGTH
        and PACKAGE_NAME.fullmatch(value) is not None
    )


def reads_destructive(text: str | None) -> bool:
    """Whether screen text names a consequential action, read as it looks (`lookalikes`)."""
    if not text:
        return False
    return any(DESTRUCTIVE_WORDS.search(reading) is not None for reading in folds(text))


def names_package(spoken: str | None, package: str) -> bool:
    """Whether an app's name as the user said it can be tied to `package` by the package's own
    name: the whole name, or every word of it, is (nearly) one of the package's segments, after
    transliteration to Latin letters ("ቴሌግራም" names org.telegram.messenger, "My Bank"
    com.mybank.app, "Google Maps" com.google.android.apps.maps). The package itself names
    itself. Nearly: within `SAME_NAME`, for spellings a transliteration or a transcript varies.

    The user's `app` vocabulary terms are names without a package: they say that a name exists,
    not which app it names, so they cannot vouch for one."""
    if spoken is None:
        return False
    if spoken == package:
        return True
    words = [word for word in _name_words(spoken) if word not in GENERIC_SEGMENTS]
    segments = [seg for seg in package.lower().split(".") if seg not in GENERIC_SEGMENTS]
    if not words or not segments:
        return False

    def is_segment(word: str) -> bool:
        return any(fuzz.ratio(word, segment) >= SAME_NAME for segment in segments)

    return is_segment("".join(words)) or all(is_segment(word) for word in words)


def required_packages(raw: Any, current_package: str) -> set[str]:
    """The packages whose grant `validate_plan` may check, so the caller reads grant state once:
    the app on screen, the plan's package name, and OPEN_APP payloads that are package names.
    Best effort on any input; never raises. A string that is not a package name is left out: no
    grant can name it."""
    candidates: list[object] = [current_package]
    if isinstance(raw, dict):
        candidates.append(raw.get("package_name"))
        steps = raw.get("steps")
        if isinstance(steps, list):
            candidates += [
                step.get("payload")
                for step in steps
                if isinstance(step, dict) and step.get("action_type") == "OPEN_APP"
            ]
    return {package for package in candidates if is_package_name(package)}


def validate_plan(
    raw: Any, tree: ViewTree, granted: Collection[str], *, current_package: str
) -> SafePlan:
    """The raw plan as a SafePlan, or PlanRejected; the order of the checks is the module's.
    `tree` and `current_package` are the screen the phone sent with the command."""
    _check_shape(raw)
    package_name: str = raw["package_name"]
    steps: list[dict[str, Any]] = raw["steps"]
    safe_steps = tuple(_check_step(step, tree, package_name) for step in steps)
    if len(safe_steps) > MAX_STEPS:
        raise PlanRejected("too_many_steps")
    _check_apps(package_name, safe_steps, current_package, granted)
    return SafePlan(
        package_name=package_name,
        steps=safe_steps,
        planner_asked_confirmation=raw.get("needs_confirmation", False),
    )


def _check_shape(raw: Any) -> None:
    if not (
        isinstance(raw, dict)
        and isinstance(raw.get("package_name"), str)
        and isinstance(raw.get("steps"), list)
        and raw["steps"]
        and all(_step_shape_ok(step) for step in raw["steps"])
        and isinstance(raw.get("needs_confirmation", False), bool)
        and isinstance(raw.get("speech_response_text"), str | None)
    ):
        raise PlanRejected("invalid_plan")


def _step_shape_ok(step: Any) -> bool:
    return isinstance(step, dict) and isinstance(step.get("payload"), str | None)


def _check_step(step: dict[str, Any], tree: ViewTree, package_name: str) -> SafeStep:
    action_type = step.get("action_type")
    if not isinstance(action_type, str) or action_type not in ACTION_TYPES:
        raise PlanRejected("action_not_allowed")
    planner_destructive = step.get("is_destructive")
    if not isinstance(planner_destructive, bool):
        raise PlanRejected("missing_destructive_flag")
    target = step.get("target_node_id")
    if target is not None and (not isinstance(target, str) or target not in tree):
        raise PlanRejected("unknown_target_node")
    payload: str | None = step.get("payload")
    if action_type == "TEXT_INPUT" and payload is None:
        raise PlanRejected("invalid_plan")
    if action_type == "SCROLL" and payload is not None and payload not in SCROLL_DIRECTIONS:
        raise PlanRejected("invalid_plan")
    node = tree[target] if target is not None else None
    if node is not None and action_type in DISABLED_TARGET_ACTIONS and "disabled" in node.flags:
        raise PlanRejected("target_disabled")
    return SafeStep(
        action_type=action_type,
        target_node_id=target,
        payload=payload,
        is_destructive=(
            planner_destructive
            or (node is not None and _subtree_reads_destructive(node, tree))
            or (action_type == "OPEN_APP" and not names_package(payload, package_name))
        ),
    )


def _subtree_reads_destructive(node: ViewNode, tree: ViewTree) -> bool:
    """The node's own text and description and everything under it, read in one pass: joined
    by NUL, which no English or Amharic phrase of the lists can match across."""
    texts = [node.text or "", node.desc or "", *tree.descendant_texts(node.node_id)]
    return reads_destructive(_APART.join(texts))


def _check_apps(
    package_name: str, steps: tuple[SafeStep, ...], current_package: str, granted: Collection[str]
) -> None:
    """Rule 4 of the module's docstring: where each step acts, as the plan moves between apps."""
    # On the screen the phone sent, the app in front is `current_package`; "" is the launcher.
    in_front, on_sent_screen = current_package, True
    acted_in: list[str] = []  # the app each step acts in, HOME steps left out
    stale = False
    for step in steps:
        if step.target_node_id is not None:
            if on_sent_screen:
                acted_in.append(current_package)
            else:  # the id names a node of a screen the plan has left
                stale = True
        elif step.action_type not in {"HOME", "OPEN_APP"}:
            acted_in.append(in_front)
        if step.action_type == "HOME":
            in_front, on_sent_screen = "", False
        elif step.action_type == "OPEN_APP":
            in_front = step.payload if is_package_name(step.payload) else package_name
            acted_in.append(in_front)
            on_sent_screen = False
    if package_name not in granted and (acted_in or package_name != current_package):
        raise PlanRejected("app_not_granted")
    if any(app not in granted for app in acted_in):  # "" (the launcher) never is
        raise PlanRejected("app_not_granted")
    if any(app != package_name for app in acted_in):
        raise PlanRejected("app_mismatch")
    if stale:
        raise PlanRejected("stale_target")
    if not is_package_name(package_name):  # only a plan of HOME steps gets here with one
        raise PlanRejected("app_not_granted")


def _name_words(name: str) -> list[str]:
    """A spoken app name as lower-case Latin words: marks dropped, any script transliterated."""
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(char for char in decomposed if unicodedata.category(char) not in {"Mn", "Cf"})
    return _NAME_WORD.findall(anyascii(bare).lower())
