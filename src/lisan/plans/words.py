"""What screen text says a tap will do: the words of consequential acts, and the generic answers
("OK", "Yes", "Continue") that take their meaning from the message beside them.

Read through `core.text.folds`, so look-alike letters, invisible characters, marks, camelCase
and identifier spellings ("deleteButton", "btn_remove_item") cannot hide a word. English words
match at the start of a word, so "Deleted items", "Payments" and "Sender" count too, and so do
the same acts with a prefix a reasonable person reads as the same act ("Resend", "Unsend",
"AutoPay", "Prepay", "Re-post"): a needless question is the safe side of a wrong guess. Amharic
words match anywhere, because Amharic attaches object markers and clitics to the verb ("ላክለት"
holds "ላክ"); the price is the odd false alarm ("ግዛት", region, holds "ግዛ").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from lisan.core.text import fold, folds

# English, by what a reasonable person wants confirmed; a space also matches none ("checkout").
# The list follows what a tap can lose: money (a payment, a purchase, a booking, a bet, a tip, a
# trial that turns into a subscription), messages (what is sent, posted or shared cannot be
# taken back), data (deleted, cleared, overwritten, formatted, moved to a bin), membership (a
# group left, a contact blocked, an account closed) and devices (reset, unpaired, locked).
DESTRUCTIVE_ENGLISH = (
    # money
    "pay", "buy", "purchase", "order", "checkout", "check out", "transfer", "withdraw", "sell",
    "cash out", "donate", "top up", "recharge", "subscribe", "upgrade", "renew", "bid",
    "book now", "booking", "reserve", "reservation", "place bet", "bet now", "wager", "stake",
    "tip", "start trial", "free trial", "try free", "rent", "invest", "pledge",
    # deleting and clearing
    "delete", "remove", "erase", "discard", "trash", "empty trash", "empty bin", "clear", "wipe",
    "reset", "deletion", "removal", "erasure", "move to bin", "overwrite", "replace", "format",
    # sending, posting, forwarding
    "send", "post", "publish", "share", "forward", "repost", "retweet", "tweet", "upload",
    "broadcast", "submit",
    # installing
    "install", "uninstall", "installation",
    # accepting and allowing
    "accept", "allow", "agree", "grant", "permit", "approve", "authorize", "authorise", "confirm",
    # blocking and reporting
    "block", "report", "unfollow", "unfriend",
    # the account
    "deactivate", "close account", "close my account", "unsubscribe", "subscription", "unlink",
    "leave", "exit group",
    "sign out", "sign off", "log out", "log off",
    # devices
    "unpair", "forget device", "disconnect", "factory reset",
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
    "ቦታ ያዝ", "ቦታ ይያዙ",  # book, reserve (a place)
    "ውርርድ", "ተወራረድ", "ይወራረዱ",  # bet
    "ጉርሻ",  # tip
    "ሙከራ ጀምር",  # start a trial
    # deleting and clearing
    "ሰርዝ", "ይሰርዙ",  # delete
    "አጥፋ", "ያጥፉ",  # erase, delete
    "ደምስስ", "ይደምስሱ",  # erase
    "አስወግድ", "ያስወግዱ",  # remove
    "አጽዳ", "ያጽዱ",  # clear
    "ዳግም አስጀምር",  # reset
    "ቅረጽ", "ይቅረጹ",  # format (storage)
    "ተካ", "ይተኩ",  # replace, overwrite
    "ወደ መጣያ",  # to the bin
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


# Prefixes read as the same act: "Resend" sends, "Unsend" deletes a sent message, "AutoPay" pays.
ENGLISH_PREFIXES = ("re", "un", "auto", "pre", "post", "e", "mass", "bulk", "quick", "instant",
                    "express", "one click", "1 click")  # fmt: skip

# Words a prefix turns into another act: "Recall" is no call.
UNPREFIXED = frozenset({"call"})

# Answers that say nothing of their own: a tap on one does what the message beside it says.
GENERIC_ANSWERS = (
    "ok", "okay", "yes", "y", "sure", "continue", "done", "proceed", "go", "go ahead", "next",
    "apply", "got it", "i understand", "understood", "yes please", "do it", "confirm", "accept",
    "allow", "agree", "i agree", "submit", "finish", "ok got it", "yes continue",
    "እሺ", "አዎ", "አዎን", "ቀጥል", "ይቀጥሉ", "ቀጣይ", "ጨርስ", "ይጨርሱ", "ተስማምቻለሁ", "እሺ ቀጥል",
)  # fmt: skip
# Answers that do nothing: they are no message (a dialog's "Cancel" says nothing of its "OK").
DISMISSALS = (
    "cancel", "no", "not now", "later", "maybe later", "dismiss", "close", "back", "no thanks",
    "skip", "ይቅር", "አይ", "አይደለም", "ተወው", "ዝጋ", "በኋላ",
)  # fmt: skip


def _phrase(words: str) -> str:
    # Each side folded as labels are; a space in a phrase matches one space or none.
    return " ?".join(re.escape(fold(word)) for word in words.split())


# The lookaheads let the engine skip a position before it tries a hundred alternatives there:
# a 64 KiB screen is read in a few milliseconds.
DESTRUCTIVE_WORDS = re.compile(
    r"\b(?=[a-z0-9])(?:(?:(?:"
    + "|".join(_phrase(prefix) for prefix in ENGLISH_PREFIXES)
    + r") ?)?(?:"
    + "|".join(_phrase(words) for words in DESTRUCTIVE_ENGLISH if words not in UNPREFIXED)
    + r")|"
    + "|".join(_phrase(words) for words in UNPREFIXED)
    + r")|(?=[\u1200-\u137f])(?:"
    + "|".join(_phrase(words) for words in DESTRUCTIVE_AMHARIC)
    + ")"
)
_ANSWERS = frozenset(" ".join(fold(answer).split()) for answer in GENERIC_ANSWERS)
_NO_MESSAGE = _ANSWERS | frozenset(" ".join(fold(word).split()) for word in DISMISSALS)


def reads_destructive(text: str | None) -> bool:
    """Whether screen text names a consequential act, read as it looks."""
    return bool(text) and _reads_destructive(text)


# Folding is the rules' main cost: a plan's steps read the same texts again (twenty scrolls of
# one 64 KB list fold it twenty times), so a reading is folded once and remembered. Bounded:
# at most 64 texts of at most the screen's 64 KB.
@functools.lru_cache(maxsize=64)
def _reads_destructive(text: str) -> bool:
    return any(DESTRUCTIVE_WORDS.search(reading) is not None for reading in folds(text))


def any_reads_destructive(texts: Iterable[str]) -> bool:
    """`reads_destructive` over several texts in one pass: joined by line breaks, which folding
    keeps, so no phrase is read across two of them."""
    return reads_destructive("\n".join(texts))


def is_generic_answer(text: str) -> bool:
    """Whether a text is only an answer ("OK", "Yes!", "እሺ"): its meaning is beside it."""
    return _reading(text) in _ANSWERS


def is_message(text: str) -> bool:
    """Whether a text says something of its own: neither an answer nor a dismissal."""
    reading = _reading(text)
    return bool(reading) and reading not in _NO_MESSAGE


@functools.lru_cache(maxsize=4096)
def _reading(text: str) -> str:
    return " ".join(fold(text).split())
