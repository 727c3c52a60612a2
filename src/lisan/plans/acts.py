"""The acts the confirmation question (`question`) says in its own words, conjugated in the
user's language, with what each acts on or whom it goes to: send, pay, transfer, delete, buy.
An act is found in the message that gave a step its meaning, by English word starts
("Payment", "Sender") and Amharic spellings (folded); any other act is quoted as the screen
says it.
"""

from __future__ import annotations

from dataclasses import dataclass

from lisan.core.text import fold
from lisan.plans.amounts import Amount
from lisan.plans.words import reads_destructive


@dataclass(frozen=True, slots=True)
class Act:
    """An act the question names in its own words: its English verb, its Amharic one (first
    person: "shall I send"), and whether its object is whom it goes to ("Send 5,000 birr to
    “Abebe”") or what it acts on ("Delete “Photo 3”")."""

    english: str
    amharic: str
    to_someone: bool


_SEND = Act("Send", "ልላክ", to_someone=True)
_PAY = Act("Pay", "ልክፈል", to_someone=True)
_TRANSFER = Act("Transfer", "ላስተላልፍ", to_someone=True)
DELETE = Act("Delete", "ልሰርዝ", to_someone=False)
_BUY = Act("Buy", "ልግዛ", to_someone=False)
# English words by how they start ("Payment", "Sender"), Amharic ones as spelled (folded). A
# word no entry names is quoted as the screen says it ("on “Sign the transaction”").
_ENGLISH_ACTS = (
    ("send", _SEND), ("pay", _PAY), ("transfer", _TRANSFER), ("delete", DELETE),
    ("remove", DELETE), ("erase", DELETE), ("buy", _BUY), ("purchase", _BUY),
)  # fmt: skip
_AMHARIC_ACTS = {
    fold(word): act
    for words, act in (
        (("ላክ", "ይላኩ", "ላክለት", "ላኪ"), _SEND),
        (("ክፈል", "ይክፈሉ", "ክፍያ"), _PAY),
        (("አስተላልፍ", "ያስተላልፉ", "ዝውውር"), _TRANSFER),
        (("ሰርዝ", "ይሰርዙ", "አጥፋ", "ያጥፉ"), DELETE),
        (("ግዛ", "ይግዙ", "ግዢ"), _BUY),
    )
    for word in words
}


def act(context: str | None) -> Act | None:
    """The act the message names first, among those the question says in its own words."""
    for word in (context or "").split():
        if not reads_destructive(word):
            continue
        folded = fold(word).strip()
        english = next((act for start, act in _ENGLISH_ACTS if folded.startswith(start)), None)
        found = english or _AMHARIC_ACTS.get(folded)
        if found is not None:
            return found
    return None


def act_clause(act: Act, subject: str, amount: Amount | None, english: bool) -> str:
    """The act in the question's own words, with what it acts on, or whom it goes to, and the
    amount: "Send 5,000 birr to “Abebe Kebede”", "Delete “Photo 3”"."""
    if act.to_someone:
        if english:
            how_much = f" {amount.said(english)}" if amount is not None else ""
            return f"{act.english}{how_much} to “{subject}”"
        how_much = f" {amount.said(english)}" if amount is not None else ""
        return f"ለ«{subject}»{how_much} {act.amharic}"
    clause = f"{act.english} “{subject}”" if english else f"«{subject}»ን {act.amharic}"
    return clause + (f" ({amount.said(english)})" if amount is not None else "")
