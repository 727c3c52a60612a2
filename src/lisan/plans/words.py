"""What screen text says a tap will do: the words of consequential acts, the words of assent
("OK", "Sounds good", "እሺ") that name no act and take their meaning from the message beside
them, and the words that decline ("Cancel", "Not now").

Read through `core.text.folds`, so look-alike letters, invisible characters, marks, camelCase
and identifier spellings ("deleteButton", "btn_remove_item") cannot hide a word. English words
match at the start of a word, so "Deleted items", "Payments" and "Sender" count too, and so do
the same acts with a prefix a reasonable person reads as the same act ("Resend", "Unsend",
"AutoPay", "Prepay", "Re-post"): a needless question is the safe side of a wrong guess.

Amharic is read by its grammar, word by word (`plans.amharic`); acts said in two words ("ቦታ
ያዝ", book) are matched as spelled (`DESTRUCTIVE_AMHARIC`). What a screen commits to beside
the words of a label (money moving, data lost) is read in `plans.evidence`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from lisan.core.text import fold, folds
from lisan.plans.amharic import AMHARIC_WORDS, GEEZ

# English, by what a reasonable person wants confirmed; a space also matches none ("checkout").
# Grouped by what a tap can lose: money (a payment, a purchase, a booking, a bet, a tip, a loan,
# a ride or a delivery requested, a trial that turns into a subscription), data (deleted,
# cleared, overwritten, restored over, formatted, moved to a bin, work not saved), messages in the
# user's name (what is sent, posted, shared or signed cannot be taken back), membership (a group
# left, a contact blocked, an account closed), devices (reset, unpaired, locked), and what the
# user consents to or starts (installs, permissions, calls). A label naming any of them is asked;
# an act no list names is still read by what its screen commits to (`commits`, `consequence`).
ENGLISH_ACTS: dict[str, tuple[str, ...]] = {
    "money": (
        "pay", "buy", "purchase", "order", "checkout", "check out", "transfer", "withdraw", "sell",
        "cash out", "donate", "top up", "recharge", "subscribe", "upgrade", "renew", "bid",
        "book now", "booking", "reserve", "reservation", "place bet", "bet now", "wager", "stake",
        "tip", "start trial", "free trial", "try free", "rent", "invest", "pledge", "borrow",
        "loan", "charge card", "charge my card", "charge it", "request ride", "request a ride",
        "request delivery", "request pickup", "request trip", "book ride", "book trip",
    ),
    "data": (
        "delete", "remove", "erase", "discard", "trash", "empty trash", "empty bin", "empty the",
        "clear",
        "wipe", "reset", "deletion", "removal", "erasure", "move to bin", "overwrite", "replace",
        "format", "restore", "without saving", "don t save", "dont save", "do not save",
    ),
    "message": (
        "send", "post", "publish", "share", "forward", "repost", "retweet", "tweet", "upload",
        "broadcast", "submit", "sign transaction", "sign and send", "sign message",
        "sign request",
    ),
    "consent": (
        "install", "uninstall", "installation",
        "accept", "allow", "agree", "grant", "permit", "approve", "authorize", "authorise",
        "confirm",
    ),
    "membership": (
        "block", "report", "unfollow", "unfriend",
        "deactivate", "close account", "close my account", "unsubscribe", "subscription",
        "unlink", "leave", "exit group", "sign out", "sign off", "log out", "log off",
    ),
    "device": ("unpair", "forget device", "disconnect", "factory reset"),
    "calling": ("call", "dial"),
}  # fmt: skip
DESTRUCTIVE_ENGLISH = tuple(words for acts in ENGLISH_ACTS.values() for words in acts)
# Amharic phrases, matched as spelled: acts said in two words, whose words alone name none
# ("ቦታ ያዝ", hold a place, books it). One-word acts are read by their grammar (`AMHARIC_ACTS`).
DESTRUCTIVE_AMHARIC = (
    "ቦታ ያዝ", "ቦታ ይያዙ",  # book, reserve (a place)
    "ሙከራ ጀምር",  # start a trial
    "ዳግም አስጀምር", "ዳግም ያስጀምሩ",  # reset
    "ወደ መጣያ",  # to the bin
    "መለያ ዝጋ", "መለያውን ዝጋ",  # close account
    "ሪፖርት አድርግ",  # report
)  # fmt: skip

# Prefixes read as the same act: "Resend" sends, "Unsend" deletes a sent message, "AutoPay" pays.
ENGLISH_PREFIXES = ("re", "un", "auto", "pre", "post", "e", "mass", "bulk", "quick", "instant",
                    "express", "one click", "1 click")  # fmt: skip

# Words a prefix turns into another act: "Recall" is no call.
UNPREFIXED = frozenset({"call"})
# Whole words that begin as an act is spelled and name another thing: a dial pad, a dialog.
# Compared whole, so no form of the act itself ("dialled", "dialing") is excused.
NOT_ACTS_ENGLISH = ("dialpad", "dialog", "dialogs", "dialogue", "dialogues")
# Acts a word before them turns into a setting's name: a time or date format formats nothing.
NOT_ACTS_AFTER = {"format": ("time", "date", "hour", "number", "file", "text")}

# Words that only assent: a label made of nothing else ("OK", "Sounds good", "Yes, do it",
# "Let's go", "Count me in", "እሺ ቀጥል") names no act of its own; a tap on it does what the
# message beside it says. A bag of words, not a list of phrases: the phrasings of yes are many,
# their words few. Words that name an act themselves ("confirm", "accept", "allow", "submit")
# are consequential words, read as such first.
ASSENT_WORDS = (
    "ok", "okay", "k", "yes", "yeah", "yep", "yup", "ya", "y", "sure", "fine", "good", "great",
    "nice", "cool", "perfect", "awesome", "alright", "all", "right", "sounds", "sound", "looks",
    "look", "works", "that", "this", "it", "its", "s", "let", "lets", "us", "go", "do", "ahead",
    "please", "thanks", "thank", "you", "absolutely", "definitely", "certainly", "of", "course",
    "count", "me", "in", "deal", "agreed", "i", "m", "im", "am", "understand", "understood",
    "got", "continue", "proceed", "next", "done", "finish", "apply", "and", "now", "then",
    "anyway", "anyways", "still",
    "እሺ", "አዎ", "አዎን", "ይሁን", "ጥሩ", "በጣም", "ደህና", "ቀጥል", "ይቀጥሉ", "እንቀጥል", "ቀጣይ",
    "ጨርስ", "ይጨርሱ", "ተስማምቻለሁ", "ገባኝ", "ትክክል", "እንሂድ", "ሂድ", "በቃ", "እሺ",
)  # fmt: skip
# Words that decline: a label of nothing else ("Cancel", "Not now", "No thanks") does nothing,
# unless the message it answers uses the same word for an act ("Cancel subscription?").
DISMISSAL_WORDS = (
    "cancel", "no", "not", "now", "later", "maybe", "dismiss", "close", "back", "thanks",
    "skip", "never", "keep", "stay", "don", "t", "dont", "nope", "go", "i", "ll", "it",
    "ይቅር", "አይ", "አይደለም", "ተወው", "ዝጋ", "በኋላ", "አሁን", "አይሆንም", "ይቅርታ",
)  # fmt: skip


def phrase(words: str) -> str:
    # Each side folded as labels are; a space in a phrase matches one space or none.
    return " ?".join(re.escape(fold(word)) for word in words.split())


def _act(words: str) -> str:
    # Fixed-width lookbehinds: each costs the same few steps wherever it is tried.
    before = "".join(rf"(?<!\b{re.escape(fold(w))} )" for w in NOT_ACTS_AFTER.get(words, ()))
    return before + phrase(words)


# The lookaheads let the engine skip a position before it tries a hundred alternatives there:
# they are tried only where a word begins, not at every character of a 64 KiB screen.
DESTRUCTIVE_WORDS = re.compile(
    r"\b(?=[a-z0-9])(?!(?:"
    + "|".join(NOT_ACTS_ENGLISH)
    + r")\b)(?:(?:(?:"
    + "|".join(phrase(prefix) for prefix in ENGLISH_PREFIXES)
    + r") ?)?(?:"
    + "|".join(_act(words) for words in DESTRUCTIVE_ENGLISH if words not in UNPREFIXED)
    + r")|"
    + "|".join(phrase(words) for words in UNPREFIXED)
    + r")|(?=[\u1200-\u137f])(?:"
    + "|".join(phrase(words) for words in DESTRUCTIVE_AMHARIC)
    + ")"
)
_ASSENT = frozenset(fold(word) for word in ASSENT_WORDS)
_DISMISSAL = frozenset(fold(word) for word in DISMISSAL_WORDS)


def reads_destructive(text: str | None) -> bool:
    """Whether screen text names a consequential act, read as it looks."""
    return bool(text) and _reads_destructive(text)


# Folding is the rules' main cost: a plan's steps read the same texts again (twenty scrolls of
# one 64 KB list fold it twenty times), so a reading is folded once and remembered. Bounded:
# at most 64 texts of at most the screen's 64 KB.
@functools.lru_cache(maxsize=64)
def _reads_destructive(text: str) -> bool:
    readings = folds(text)
    if any(DESTRUCTIVE_WORDS.search(reading) is not None for reading in readings):
        return True
    return GEEZ.search(text) is not None and any(
        AMHARIC_WORDS.search(reading) is not None for reading in readings
    )


def any_reads_destructive(texts: Iterable[str]) -> bool:
    """`reads_destructive` over several texts in one pass: joined by line breaks, which folding
    keeps, so no phrase is read across two of them."""
    return reads_destructive("\n".join(texts))


def words_of(text: str) -> tuple[str, ...]:
    """The words a person reads in `text`, folded (`core.text.fold`)."""
    return _words(text)


def names_no_act(text: str) -> bool:
    """Whether a text says nothing a tap could do: no word at all (a check mark, an icon's
    glyph) or only words of assent ("OK", "Sounds good", "እሺ")."""
    return set(_words(text)) <= _ASSENT


def is_dismissal(text: str) -> bool:
    """Whether a text only declines ("Cancel", "Not now", "ይቅር"); at least one word."""
    words = _words(text)
    return bool(words) and set(words) <= _DISMISSAL


def is_message(text: str) -> bool:
    """Whether a text says something of its own: neither assent, nor a dismissal, nor empty."""
    words = set(_words(text))
    return bool(words - _ASSENT) and not words <= _DISMISSAL


@functools.lru_cache(maxsize=4096)
def _words(text: str) -> tuple[str, ...]:
    return tuple(fold(text).split())
