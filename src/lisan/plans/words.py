"""What screen text says a tap will do: the words of consequential acts, the words of assent
("OK", "Sounds good", "እሺ") that name no act and take their meaning from the message beside
them, and the words that decline ("Cancel", "Not now").

Read through `core.text.folds`, so look-alike letters, invisible characters, marks, camelCase
and identifier spellings ("deleteButton", "btn_remove_item") cannot hide a word. English words
match at the start of a word, so "Deleted items", "Payments" and "Sender" count too, and so do
the same acts with a prefix a reasonable person reads as the same act ("Resend", "Unsend",
"AutoPay", "Prepay", "Re-post"): a needless question is the safe side of a wrong guess.

Amharic is read by its grammar, word by word (`reads_amharic_act`). A verb carries its
prepositions, subordinators, negation, person, voice and mood in front ("ለመሰረዝ", to delete;
"እንዲልኩ", that they send; "አትሰርዝ", don't delete) and its objects, possessors, person and plural
behind ("ላክለት", send him; "ተሰርዟል", has been deleted), and it inflects by the vowels of its stem
("ሰርዝ", delete!, "ሰረዘ", he deleted). So a word is an act when it is at most three known
prefixes (`AMHARIC_PREFIXES`), one of an act's stems (`AMHARIC_ACTS`: imperative and jussive,
perfect, imperfect, infinitive and passive stems, the last syllable in any vowel since endings
fuse with it: "ሰርዙ", "ክፈሉ" and "ላኩ" are the plural and polite imperatives), and at most three
known endings (`AMHARIC_ENDINGS`), with nothing left over. The stems are compared syllable by
syllable, vowels included, so a word that only shares an act's consonants is not that act: "ልክ"
(right) is no "ላክ" (send), "ክፍል" (a room) no "ክፈል" (pay), "ተከተል" (follow) no "ተካ" (replace),
"ውጤት" (result) no "ውጣ" (go out). A stem that never stands alone (the imperfect "-ልክ" of "ይልካል",
he sends) is read only after a prefix of person or voice, so the bare "ልክ" and "ደወል" (a bell)
are not acts; a causative's stem ("አጥፋ", erase!) is read with its own glottal prefix (አ, or
fused into the prefix before it: ያ, ማ, ላ, ና, ታ), so "ይጠፋል" (it goes off) is not erasing. A word
that spells an act's stem yet is none of its forms ("ሰረዝ", a dash) is excused only as spelled,
whole (`AMHARIC_NOT_ACTS`): no inflected form of an act is. What the grammar still mistakes is
the odd homograph: "ግዛት" (region) reads as "ግዛ" (buy!) with an ending, a needless question; the
plural "fill!" ("ሙሉ") is spelled as "full" and read only with a prefix ("ይሙሉ"). Acts said in
two words ("ቦታ ያዝ", book) are matched as spelled (`DESTRUCTIVE_AMHARIC`).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from lisan.core.text import consonants, fold, folds

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


def _phrase(words: str) -> str:
    # Each side folded as labels are; a space in a phrase matches one space or none.
    return " ?".join(re.escape(fold(word)) for word in words.split())


def _act(words: str) -> str:
    # Fixed-width lookbehinds: each costs the same few steps wherever it is tried.
    before = "".join(rf"(?<!\b{re.escape(fold(w))} )" for w in NOT_ACTS_AFTER.get(words, ()))
    return before + _phrase(words)


# The lookaheads let the engine skip a position before it tries a hundred alternatives there:
# they are tried only where a word begins, not at every character of a 64 KiB screen.
DESTRUCTIVE_WORDS = re.compile(
    r"\b(?=[a-z0-9])(?!(?:"
    + "|".join(NOT_ACTS_ENGLISH)
    + r")\b)(?:(?:(?:"
    + "|".join(_phrase(prefix) for prefix in ENGLISH_PREFIXES)
    + r") ?)?(?:"
    + "|".join(_act(words) for words in DESTRUCTIVE_ENGLISH if words not in UNPREFIXED)
    + r")|"
    + "|".join(_phrase(words) for words in UNPREFIXED)
    + r")|(?=[\u1200-\u137f])(?:"
    + "|".join(_phrase(words) for words in DESTRUCTIVE_AMHARIC)
    + ")"
)
_ASSENT = frozenset(fold(word) for word in ASSENT_WORDS)
_DISMISSAL = frozenset(fold(word) for word in DISMISSAL_WORDS)


# Amharic is read by its grammar (see the module's docstring). Each act is a few stems, spelled
# with the vowels that tell it from other words ("ላክ", send, has ላ; "ልክ", right, has ል):
# - a stem's last syllable may take any vowel of its consonant, since endings fuse with it
#   ("ሰርዝ" is also "ሰርዙ", delete! pl., and the "ሰርዟ" of "ተሰርዟል", has been deleted); a stem
#   ending in "=" keeps its last vowel as spelled ("ውጣ=", go out, is no "ውጤት", result);
# - a stem starting with "-" is one that never stands alone (an imperfect or passive stem): it
#   is read only after a prefix of person, voice or mood (`AMHARIC_VERB_PREFIXES`: "ይልካል", he
#   sends, "ተልኳል", has been sent; a bare "ልክ" is "right", "ደወል" a bell);
# - a causative stem ("አጥፋ", erase!) is also read with its አ fused into the prefix before it:
#   the ያ of its jussive, the ማ of its infinitive, the ላ and ና of "let me", "let us" and the ታ
#   of "you" ("ያጥፉ", "ለማጥፋት", "ላስቀምጥ"); the plain verb ("ይጠፋል", it goes off) is not the act.
AMHARIC_ACTS = (
    # money
    ("pay", ("ክፈል", "ከፈል", "-ከፍል", "ክፍያ")),
    ("buy", ("ግዛ", "-ገዛ", "ግዢ")),
    ("order", ("እዘዝ", "አዘዝ", "-ዘዝ")),
    ("transfer, forward", ("አስተላልፍ", "አስተላለፍ", "-ስተላልፍ", "-ስተላለፍ")),
    ("sell", ("ሽጥ", "ሸጥ")),
    ("donate", ("ለግስ", "ለገስ", "ልገሳ")),
    ("top up (fill)", ("ሙላ=", "-ሙሉ=", "-ሞላ=")),
    ("subscribe, register", ("-መዝገብ", "-መዘገብ")),
    ("bet", ("ውርርድ", "-ወራረድ")),
    ("tip", ("ጉርሻ",)),
    # deleting and clearing
    ("delete", ("ሰርዝ", "ሰረዝ", "ሰርዢ=", "ስረዛ")),
    ("erase", ("አጥፋ", "አጠፋ")),
    ("destroy, erase", ("ደምስስ", "ደመሰስ")),
    ("remove", ("አስወግድ", "አስወገድ", "-ወግድ", "-ወገድ")),
    ("clear", ("አጽዳ", "አጸዳ")),
    ("format (storage)", ("ቅረጽ",)),
    ("replace, overwrite", ("ተካ=", "-ተኩ=", "-ተክ=")),
    # sending, posting
    ("send", ("ላክ", "-ልክ")),
    ("post (also paste)", ("ለጥፍ", "ለጠፍ", "ልጥፍ")),
    ("publish", ("አትም", "አተም")),
    ("share", ("አጋራ", "-ጋራ")),
    ("submit", ("አስገባ",)),
    # installing
    ("install (also press)", ("ጫን",)),
    ("uninstall", ("አራግፍ", "አራገፍ")),
    # accepting and allowing
    ("accept", ("ተቀበል", "ተቀብል", "-ቀበል")),
    ("allow", ("ፍቀድ", "ፈቀድ", "-ፈቅድ")),
    ("agree", ("ስማማ",)),
    ("confirm", ("አረጋግጥ", "አረጋገጥ", "-ረጋግጥ")),
    # blocking
    ("block", ("አግድ", "አገድ", "ታግድ")),
    ("report", ("ሪፖርት",)),
    # the account
    ("deactivate", ("አቦዝን", "አቦዘን")),
    ("unsubscribe, discontinue", ("አቋርጥ", "አቋረጥ")),
    ("leave (a group)", ("ልቀቅ", "ለቀቅ")),
    ("sign out, leave; withdraw (take out)", ("ውጣ=", "ውጡ=")),
    # calling
    ("call", ("ደውል", "-ደወል")),
)
# Before a stem, at most `AMHARIC_MAX_AFFIXES` of these, outermost first in a word: relative and
# prepositional (የ, ለ, በ, ከ, ስለ, እንደ), subordinate and purposive (እንዲ, ሲ, ሊ, ሚ), negative
# (አል, አት, አይ), person, voice and mood (ይ, ት, እ, ን, ተ, ያ, አ, ማ, መ, ል).
AMHARIC_PREFIXES = (
    "እንዲ", "እንድ", "እንደ", "ስለ", "ሲ", "ሊ", "ሚ", "የ", "ለ", "በ", "ከ", "አል", "አት", "አይ",
    "ተ", "መ", "ማ", "ያ", "ይ", "ት", "እ", "አ", "ን", "ል",
)  # fmt: skip
# What a stem that never stands alone follows directly.
AMHARIC_VERB_PREFIXES = ("ይ", "ት", "ን", "ተ", "ሚ", "ሲ", "ሊ", "እንዲ", "እንድ", "ያ", "ማ", "መ")
# After a stem, at most `AMHARIC_MAX_AFFIXES` of these: object and possessive (ው, ኝ, ህ, ሽ, ዎ,
# ት, ን, ቸው, ለት, ላቸው...), plural (ዎች, ኦች), person (ኩ, ሁ, ለሁ, ል, ላል...), the perfect's
# "has" (ቷል, ዋል...), the negative's ም and the conjunction's ና.
AMHARIC_ENDINGS = (
    "ው", "ዋ", "ዎ", "ዎን", "ዎች", "ኦች", "ች", "ኝ", "ህ", "ሽ", "ሁ", "ኩ", "ት", "ን", "ና", "ም",
    "ል", "ላ", "ለ", "ሉ", "ቸው", "ችሁ", "ለት", "ላት", "ላቸው", "ልኝ", "ልህ", "ልሽ", "ልን", "ልዎ",
    "ባቸው", "ቷል", "ዋል", "ኋል", "ለሁ", "ላል", "ለች", "ናል", "ታል", "ሻል", "ያል", "ቻል", "ቻለሁ",
    "ኣል", "ኣለሁ",
)  # fmt: skip
AMHARIC_MAX_AFFIXES = 3
# Words spelled exactly as an act's stem reads that are no form of it, compared whole and as
# spelled (folded), so no inflected act is ever excused by them.
AMHARIC_NOT_ACTS = (
    "ሰረዝ", "ሰረዞች",  # a dash, dashes (ሰረዘ, delete: its perfect stem, never a word alone)
)  # fmt: skip


def _vowels_of(consonant: str) -> frozenset[str]:
    """Every syllable of a Ge'ez consonant (its row, and its labialized row), folded."""
    row = consonants(consonant)
    syllables = (chr(code) for code in range(0x1200, 0x135B))
    return frozenset(fold(s) for s in syllables if consonants(s) == row and fold(s))


def _stem_forms(spellings: Iterable[str]) -> Iterable[tuple[str, bool]]:
    """Each stem as a pattern over folded text (its body as spelled, then its last syllable),
    and whether it is read only after a verb prefix."""
    for spelling in spellings:
        bound, exact = spelling.startswith("-"), spelling.endswith("=")
        stem = spelling.strip("-=")
        # A causative's አ fuses with the prefix before it: ያ (jussive), ማ (infinitive), ላ and
        # ና (let me, let us), ታ (you).
        fused = ("ያ", "ማ", "ላ", "ና", "ታ")
        causative = (stem, *(f + stem[1:] for f in fused)) if stem[0] == "አ" else (stem,)
        for form in causative:
            lasts = {fold(form[-1])} if exact else _vowels_of(form[-1])
            yield (
                re.escape(fold(form[:-1])) + f"[{''.join(map(re.escape, sorted(lasts)))}]",
                bound,
            )


def _one_of(texts: Iterable[str]) -> str:
    """An alternation, longest first, of texts folded and escaped."""
    return "|".join(re.escape(fold(t)) for t in sorted(set(texts), key=len, reverse=True))


def _amharic_pattern(spellings: Iterable[str]) -> re.Pattern[str]:
    """A word (between separators) that is at most three prefixes, one of the stems and at most
    three endings; the bound stems right after a verb prefix. Each repetition is bounded and
    each alternative spells its characters, so a match attempt at a word's start costs at most
    a fixed number of steps, and no attempt starts inside a word: linear in the text."""
    forms = list(_stem_forms(spellings))
    free = "|".join(form for form, bound in forms if not bound)
    bound = "|".join(form for form, bound in forms if bound) or "(?!)"
    prefix, verb = _one_of(AMHARIC_PREFIXES), _one_of(AMHARIC_VERB_PREFIXES)
    most = AMHARIC_MAX_AFFIXES
    return re.compile(
        rf"(?<!\S)(?!(?:{_one_of(AMHARIC_NOT_ACTS)})(?!\S))"
        rf"(?:(?:{prefix}){{0,{most}}}(?:{free})|(?:{prefix}){{0,{most - 1}}}(?:{verb})(?:{bound}))"
        rf"(?:{_one_of(AMHARIC_ENDINGS)}){{0,{most}}}(?!\S)"
    )


# Over a reading of `core.text.folds`.
AMHARIC_WORDS = _amharic_pattern(
    spelling for _, spellings in AMHARIC_ACTS for spelling in spellings
)


def reads_amharic_act(word: str) -> bool:
    """Whether one Amharic word is a form of an act (see the module's docstring)."""
    return AMHARIC_WORDS.fullmatch(fold(word)) is not None


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
    return _GEEZ.search(text) is not None and any(
        AMHARIC_WORDS.search(reading) is not None for reading in readings
    )


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


# What a screen commits to, beside what a label names: the evidence `consequence` reads in a
# page's heading, a dialog's message and the text beside an assent. Money is read by what it does
# ("you'll be billed", "debited from", "a fee applies") and by an amount shown with its currency,
# in either language, not by a list of verbs.
MONEY_ENGLISH = (
    "billed", "bill you", "bill your", "bill my", "charged", "charge you", "charge your",
    "charge my", "charges apply", "charges may apply", "debited", "debit", "deducted", "deduct",
    "fee", "fees", "surcharge", "cost", "costs", "non refundable", "nonrefundable",
)  # fmt: skip
# Amharic money, matched anywhere in a folded word, since Amharic attaches its clitics ("ከሂሳብዎ",
# from your account): will be paid, will be deducted, deduction, payment, your account, loan.
AMHARIC_MONEY = ("ይከፈላል", "ይከፈል", "ይቀነሳል", "ይቀነስ", "ተቀናሽ", "ክፍያ", "ሂሳብዎ", "ሂሳብህ", "ብድር")
# Currencies beside a number: an amount. Each as a screen writes it (a code, a name, a symbol)
# and as the question says it, in English and in Amharic (`question`). Symbols are read from the
# text before folding (folding reads them as separators); codes and names as words.
CURRENCIES: dict[str, tuple[str, str]] = {
    alias: names
    for aliases, names in (
        (("etb", "birr", "br", "ብር"), ("birr", "ብር")),
        (("usd", "$", "us$", "dollar", "dollars"), ("dollars", "ዶላር")),
        (("eur", "€", "euro", "euros"), ("euros", "ዩሮ")),
        (("gbp", "£", "pound", "pounds"), ("pounds", "ፓውንድ")),
        (("¥", "yen"), ("yen", "የን")),
        (("₹", "inr", "rupee", "rupees"), ("rupees", "ሩፒ")),
        (("₦", "ngn", "naira"), ("naira", "ናይራ")),
    )
    for alias in aliases
}  # fmt: skip
CURRENCY_SYMBOLS = "".join(alias for alias in CURRENCIES if len(alias) == 1)
CURRENCY_WORDS = (*(a for a in CURRENCIES if a.isascii() and a.isalpha()), "cents")
# Data lost, as a message says it without naming the act: where it goes, and that it is gone.
DATA_LOSS_ENGLISH = (
    "recycle bin", "recycling bin", "bin", "trash", "permanently", "irreversible",
    "can t be undone", "cannot be undone", "can not be undone", "can t undo", "cannot undo",
    "will be lost", "be lost", "lose all", "lose your",
)  # fmt: skip
# Cannot be restored / undone, will be lost, permanently.
AMHARIC_DATA_LOSS = ("ሊመለስ አይችልም", "ሊቀለበስ አይችልም", "ይጠፋል", "ይጠፋሉ", "በቋሚነት")
# Verbs that end something, and what ending it loses: "Stop" under "Stop the recording?" and
# "Close" under "Close your account?" do what the message asks, though they read as dismissals.
ENDING_ENGLISH = ("stop", "end", "close", "cancel", "quit", "exit", "leave", "abort",
                  "terminate", "hang", "abandon")  # fmt: skip
# The same verbs in Amharic, by their stems as `AMHARIC_ACTS` spells them: stop, close, cancel.
ENDING_AMHARIC = (
    ("stop", ("አቁም", "አቆም", "-ቆም")),
    ("close", ("ዝጋ", "ዘጋ", "-ዝግ", "-ዘጋ")),
    ("cancel", ("ሰርዝ", "ሰረዝ", "ስረዛ")),
)
LOSABLE_ENGLISH = (
    # data
    "recording", "record", "video", "audio", "draft", "changes", "progress", "upload",
    "download", "backup", "workout",
    # messages and calls
    "call", "live", "stream", "broadcast", "message",
    # money
    "ride", "trip", "order", "booking", "reservation", "delivery", "transfer", "payment",
    "transaction", "loan",
    # membership
    "account", "subscription", "membership", "plan", "premium", "trial", "group",
)  # fmt: skip
# Recording, account, registration, trip, order, call: matched anywhere in a folded word.
LOSABLE_AMHARIC = ("ቀረጻ", "መለያ", "ምዝገባ", "ጉዞ", "ትዕዛዝ", "ጥሪ")
# Declining to save throws work away: "No" under "Save your changes?".
DECLINING_WORDS = ("no", "nope", "don", "dont", "never", "not", "አይ", "አይሆንም")
# A field a message is written in (beside it, the control that sends it), not one a search is.
MESSAGE_FIELD_WORDS = (
    "message", "messages", "msg", "sms", "mms", "text", "chat", "reply", "comment", "compose",
    "write", "caption", "tweet", "post", "mind",
)  # fmt: skip
MESSAGE_FIELD_AMHARIC = ("መልእክት",)
SEARCH_WORDS = ("search", "find", "ፈልግ")
# What a composer's send button may be labelled with, beside no word at all.
SEND_CHANNEL_WORDS = ("sms", "mms", "rcs", "imessage", "text", "message", "reply", "chat")


def _words_pattern(words: Iterable[str]) -> re.Pattern[str]:
    # Whole words and phrases of folded text; literal alternatives, so linear in the text.
    return re.compile(r"\b(?:" + "|".join(_phrase(w) for w in words) + r")\b")


_MONEY_WORDS = _words_pattern(MONEY_ENGLISH)
_CURRENCY_WORDS = re.compile(
    r"(?<![a-z])(?:"
    + "|".join(CURRENCY_WORDS)
    + r")(?![a-z])|(?<![\u1200-\u137f])"
    + fold("ብር")
    + r"(?![\u1200-\u137f])"
)
_DIGIT = re.compile(r"\d")
_FOLDED_AMHARIC_MONEY = tuple(fold(word) for word in AMHARIC_MONEY)
_ENDING = frozenset(fold(word) for word in ENDING_ENGLISH)
_DATA_LOSS_WORDS = _words_pattern(DATA_LOSS_ENGLISH)
_FOLDED_AMHARIC_DATA_LOSS = tuple(fold(word) for word in AMHARIC_DATA_LOSS)


_ENDING_VERBS = tuple(_amharic_pattern(stems) for _, stems in ENDING_AMHARIC)
_LOSABLE = frozenset(fold(word) for word in LOSABLE_ENGLISH)
_LOSABLE_AMHARIC = tuple(fold(word) for word in LOSABLE_AMHARIC)
_DECLINING = frozenset(fold(word) for word in DECLINING_WORDS)
# Save, by its stems: አስቀምጥ (save!), ያስቀምጡ, ማስቀመጥ (to save), ይቀመጥ (be saved).
_SAVE = _amharic_pattern(("አስቀምጥ", "አስቀመጥ", "-ቀመጥ", "-ቀምጥ"))
_MESSAGE_FIELD = frozenset(fold(word) for word in MESSAGE_FIELD_WORDS)
_MESSAGE_FIELD_AMHARIC = tuple(fold(word) for word in MESSAGE_FIELD_AMHARIC)
_SEARCH = frozenset(fold(word) for word in SEARCH_WORDS)
_SEND_CHANNEL = frozenset(fold(word) for word in SEND_CHANNEL_WORDS)


def names_money(text: str | None) -> bool:
    """Whether screen text says money moves: in words ("you'll be billed", "a fee applies",
    "ይቀነሳል"), or as an amount with its currency ("1,250.00 ETB", "$5", "ብር 200")."""
    return bool(text) and _names_money(text)


@functools.lru_cache(maxsize=256)
def _names_money(text: str) -> bool:
    folded = fold(text)
    if _MONEY_WORDS.search(folded) or any(word in folded for word in _FOLDED_AMHARIC_MONEY):
        return True
    if _DIGIT.search(folded) is None:
        return False
    shown = unicodedata.normalize("NFKC", text)
    return any(symbol in shown for symbol in CURRENCY_SYMBOLS) or bool(
        _CURRENCY_WORDS.search(folded)
    )


def commits(text: str | None) -> bool:
    """Whether screen text (a heading, a dialog's message, the text beside an assent) commits
    the user to something that can be lost: it names a consequential act, money moving, or
    data lost ("into the Recycle Bin", "This can't be undone")."""
    return reads_destructive(text) or names_money(text) or names_data_loss(text)


def names_data_loss(text: str | None) -> bool:
    """Whether a message says data will be lost, in any words: a bin it goes to, a loss that
    cannot be undone ("permanently", "can't be undone", "ሊመለስ አይችልም")."""
    if not text:
        return False
    folded = fold(text)
    return _DATA_LOSS_WORDS.search(folded) is not None or any(
        word in folded for word in _FOLDED_AMHARIC_DATA_LOSS
    )


def names_search(texts: Iterable[str]) -> bool:
    """Whether a field's hint, text or id says it searches ("Search", "Find", "ፈልግ")."""
    return bool({word for text in texts for word in _words(text)} & _SEARCH)


def ends_what_it_names(own: Iterable[str], message: str) -> bool:
    """Whether a control's words end what `message` asks about and what ending loses: its verb
    is the message's ("Stop" under "Stop the recording?", "ዝጋ" under "መለያዎን ይዝጉ?") and the
    message names something ending loses (a recording, an account, a paid ride, a message)."""
    said = {word for text in own for word in _words(text)}
    asked = _words(message)
    verb = any(word in _ENDING and word in asked for word in said) or any(
        _GEEZ.search(word) is not None
        and pattern.fullmatch(word) is not None
        and pattern.search(" ".join(asked)) is not None
        for word in said
        for pattern in _ENDING_VERBS
    )
    return verb and (names_what_can_be_lost(message) or commits(message))


def names_what_can_be_lost(text: str) -> bool:
    """Whether text names something ending loses: a recording, a draft, a ride, an account..."""
    words = _words(text)
    return bool(_LOSABLE.intersection(words)) or any(
        stem in word for word in words for stem in _LOSABLE_AMHARIC
    )


def declines_to_save(own: Iterable[str], message: str) -> bool:
    """Whether a negative answer ("No", "Don't", "አይ") answers a question about saving: it
    throws the work away."""
    said = {word for text in own for word in _words(text)}
    if not said & _DECLINING:
        return False
    asked = _words(message)
    return any(word.startswith("sav") or word == "unsaved" for word in asked) or (
        _SAVE.search(" ".join(asked)) is not None
    )


def is_message_field_text(texts: Iterable[str]) -> bool:
    """Whether a field's hint, text or id says a message is written in it ("Type a message",
    "Reply", "መልእክት ይጻፉ"), not a search."""
    words = {word for text in texts for word in _words(text)}
    if words & _SEARCH:
        return False
    return bool(words & _MESSAGE_FIELD) or any(
        stem in word for word in words for stem in _MESSAGE_FIELD_AMHARIC
    )


def names_a_send_channel(text: str) -> bool:
    """Whether a label names only the channel a composer sends by ("SMS", "Text message")."""
    words = set(_words(text))
    return bool(words) and words <= _SEND_CHANNEL
