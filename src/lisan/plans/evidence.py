"""What a screen commits to, beside what a label names: the evidence `consequence` reads in a
page's heading, a dialog's message and the text beside an assent. Money is read by what it does
("you'll be billed", "debited from", "a fee applies") and by an amount shown with its currency,
in either language, not by a list of verbs; data lost by where it goes and that it is gone
("into the Recycle Bin", "This can't be undone"). And what an answer does to the message it
answers: a verb that ends what the message names ("Stop" under "Stop the recording?"), a "No"
that declines to save; and what a field is for (a message written in it, a search).

Read through `core.text.fold`, as `words` reads a label.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

from lisan.core.text import fold
from lisan.plans.amharic import GEEZ, amharic_pattern
from lisan.plans.words import phrase, reads_destructive, words_of

MONEY_ENGLISH = (
    "billed", "bill you", "bill your", "bill my", "charged", "charge you", "charge your",
    "charge my", "charges apply", "charges may apply", "debited", "debit", "deducted", "deduct",
    "fee", "fees", "surcharge", "cost", "costs", "non refundable", "nonrefundable",
)  # fmt: skip
# Amharic money, matched anywhere in a folded word, since Amharic attaches its clitics ("ከሂሳብዎ",
# from your account): will be paid, will be deducted, deduction, payment, your account, loan.
AMHARIC_MONEY = ("ይከፈላል", "ይከፈል", "ይቀነሳል", "ይቀነስ", "ተቀናሽ", "ክፍያ", "ሂሳብዎ", "ሂሳብህ", "ብድር")
# Currencies beside a number: an amount. Each as a screen writes it (a code, a name, a symbol)
# and as the question says it, in English and in Amharic (`amounts`, `question`). Symbols are
# read from the text before folding (folding reads them as separators); codes and names as words.
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
# The same verbs in Amharic, by their stems as `amharic.AMHARIC_ACTS` spells them: stop, close,
# cancel.
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
    return re.compile(r"\b(?:" + "|".join(phrase(w) for w in words) + r")\b")


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


_ENDING_VERBS = tuple(amharic_pattern(stems) for _, stems in ENDING_AMHARIC)
_LOSABLE = frozenset(fold(word) for word in LOSABLE_ENGLISH)
_LOSABLE_AMHARIC = tuple(fold(word) for word in LOSABLE_AMHARIC)
_DECLINING = frozenset(fold(word) for word in DECLINING_WORDS)
# Save, by its stems: አስቀምጥ (save!), ያስቀምጡ, ማስቀመጥ (to save), ይቀመጥ (be saved).
_SAVE = amharic_pattern(("አስቀምጥ", "አስቀመጥ", "-ቀመጥ", "-ቀምጥ"))
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
    return bool({word for text in texts for word in words_of(text)} & _SEARCH)


def ends_what_it_names(own: Iterable[str], message: str) -> bool:
    """Whether a control's words end what `message` asks about and what ending loses: its verb
    is the message's ("Stop" under "Stop the recording?", "ዝጋ" under "መለያዎን ይዝጉ?") and the
    message names something ending loses (a recording, an account, a paid ride, a message)."""
    said = {word for text in own for word in words_of(text)}
    asked = words_of(message)
    verb = any(word in _ENDING and word in asked for word in said) or any(
        GEEZ.search(word) is not None
        and pattern.fullmatch(word) is not None
        and pattern.search(" ".join(asked)) is not None
        for word in said
        for pattern in _ENDING_VERBS
    )
    return verb and (names_what_can_be_lost(message) or commits(message))


def names_what_can_be_lost(text: str) -> bool:
    """Whether text names something ending loses: a recording, a draft, a ride, an account..."""
    words = words_of(text)
    return bool(_LOSABLE.intersection(words)) or any(
        stem in word for word in words for stem in _LOSABLE_AMHARIC
    )


def declines_to_save(own: Iterable[str], message: str) -> bool:
    """Whether a negative answer ("No", "Don't", "አይ") answers a question about saving: it
    throws the work away."""
    said = {word for text in own for word in words_of(text)}
    if not said & _DECLINING:
        return False
    asked = words_of(message)
    return any(word.startswith("sav") or word == "unsaved" for word in asked) or (
        _SAVE.search(" ".join(asked)) is not None
    )


def is_message_field_text(texts: Iterable[str]) -> bool:
    """Whether a field's hint, text or id says a message is written in it ("Type a message",
    "Reply", "መልእክት ይጻፉ"), not a search."""
    words = {word for text in texts for word in words_of(text)}
    if words & _SEARCH:
        return False
    return bool(words & _MESSAGE_FIELD) or any(
        stem in word for word in words for stem in _MESSAGE_FIELD_AMHARIC
    )


def names_a_send_channel(text: str) -> bool:
    """Whether a label names only the channel a composer sends by ("SMS", "Text message")."""
    words = set(words_of(text))
    return bool(words) and words <= _SEND_CHANNEL
