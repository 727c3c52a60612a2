"""What screen text says a tap will do: the words of consequential acts, the words of assent
("OK", "Sounds good", "እሺ") that name no act and take their meaning from the message beside
them, and the words that decline ("Cancel", "Not now").

Read through `core.text.folds`, so look-alike letters, invisible characters, marks, camelCase
and identifier spellings ("deleteButton", "btn_remove_item") cannot hide a word. English words
match at the start of a word, so "Deleted items", "Payments" and "Sender" count too, and so do
the same acts with a prefix a reasonable person reads as the same act ("Resend", "Unsend",
"AutoPay", "Prepay", "Re-post"): a needless question is the safe side of a wrong guess. Amharic
words match anywhere as spelled, because Amharic attaches object markers and clitics to the verb
("ላክለት" holds "ላክ"); the price is the odd false alarm ("ግዛት", region, holds "ግዛ"). And since
Amharic inflects by vowels too ("ተሰርዟል", has been deleted), its acts are also read by their
consonants (`AMHARIC_ROOTS`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from lisan.core.text import consonants, fold, folds

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
_ASSENT = frozenset(fold(word) for word in ASSENT_WORDS)
_DISMISSAL = frozenset(fold(word) for word in DISMISSAL_WORDS)


# Amharic inflects a verb by its vowels and by what it attaches: "ሰርዝ" (delete!) is also "ይሰርዙ"
# (polite), "ተሰርዟል" (has been deleted), "መሰረዝ" (deleting), "ለመሰረዝ" (to delete). So each
# one-word act above is also read by its consonants (`core.text.consonants`): the root, after
# at most two consonants of the prefixes verbs and verbal nouns take (the glottal አ/እ/ያ, የ/ይ,
# ተ/ት, መ/ማ, ነ/ን, ለ/ል, በ, ከ). A causative's leading አ ("አጥፋ", "አስወግድ") is such a prefix,
# so its root is read without it. A root of three consonants or more matches whatever follows
# it; one of two ("ላክ", send, is "ለከ") only before at most two consonants of the object and
# subject endings (ል, ት, ው, ሽ, ክ, ቸ, ን, ህ, ም), or it would be found in too many words: "ተመለስ"
# (go back) holds the consonants of "አትም" (publish) before "ለሰ". Still more words than acts
# share a root's consonants; the price is the odd needless question, and a few common words
# that name no act are not read that way (`AMHARIC_NOT_ACTS`).
AMHARIC_PREFIXES = "አየተመነለበከ"
AMHARIC_ENDINGS = "ለተወሸከቸነሀመ"
AMHARIC_NOT_ACTS = (
    "ልክ",  # right, exactly (ላክ, send)
    "ክፍል", "ክፍሎች",  # a room, a section (ክፈል, pay: spelled apart, read below as spelled)
    "ተከተል", "ይከተሉ", "ተከታይ", "ተከታዮች",  # follow, follower (ተካ, replace)
    "ሰረዝ",  # a dash (ሰርዝ, delete)
    "ጠፍቷል",  # it is off, it is lost (አጥፋ, erase)
)  # fmt: skip


def amharic_root(word: str) -> str:
    """The consonants by which an Amharic act is read (see above)."""
    root = _consonant_reading(word)
    return root[1:] if root[0] == fold("አ") and len(root) > 2 else root


def _consonant_reading(text: str) -> str:
    return fold(consonants(text))


def _one_of(texts: Iterable[str]) -> str:
    return "|".join(re.escape(text) for text in texts)


def _amharic_pattern() -> re.Pattern[str]:
    roots = sorted(
        {
            amharic_root(words)
            for words in DESTRUCTIVE_AMHARIC
            if " " not in words and not words.startswith(("ይ", "ያ"))  # polite: a prefix more
        },
        key=len,
        reverse=True,
    )
    prefix, endings = (
        _one_of(_consonant_reading(AMHARIC_PREFIXES)),
        _consonant_reading(AMHARIC_ENDINGS),
    )
    not_acts = _one_of(_consonant_reading(word) for word in AMHARIC_NOT_ACTS)
    long_roots = _one_of(root for root in roots if len(root) > 2)
    short_roots = _one_of(root for root in roots if len(root) <= 2)
    return re.compile(
        rf"(?<!\S)(?!(?:{not_acts})(?!\S))(?:{prefix}){{0,2}}"
        rf"(?:(?:{long_roots})|(?:{short_roots})[{re.escape(endings)}]{{0,2}}(?!\S))"
    )


# Over `_consonant_reading` of a text holding Ge'ez.
AMHARIC_ROOTS = _amharic_pattern()


def reads_destructive(text: str | None) -> bool:
    """Whether screen text names a consequential act, read as it looks."""
    return bool(text) and _reads_destructive(text)


# Folding is the rules' main cost: a plan's steps read the same texts again (twenty scrolls of
# one 64 KB list fold it twenty times), so a reading is folded once and remembered. Bounded:
# at most 64 texts of at most the screen's 64 KB.
@functools.lru_cache(maxsize=64)
def _reads_destructive(text: str) -> bool:
    if any(DESTRUCTIVE_WORDS.search(reading) is not None for reading in folds(text)):
        return True
    return _GEEZ.search(text) is not None and bool(AMHARIC_ROOTS.search(_consonant_reading(text)))


_GEEZ = re.compile("[\u1200-\u137f]")


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
