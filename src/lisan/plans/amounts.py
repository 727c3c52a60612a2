"""The amounts a screen or a typed text shows, each with its currency: what the confirmation
question (`question`) names as the money a tap moves.

A number is digits with "," or "." between them, said as written; a currency is one
`evidence.CURRENCIES` knows, written beside it as a code, a name or a symbol ("5,000 ETB",
"$12.50", "ብር 300"), and said in the question's own word. Read by plain scanning of words, in
one pass: no pattern runs on the screen's text.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator
from typing import NamedTuple

from lisan.plans.evidence import CURRENCIES, CURRENCY_SYMBOLS
from lisan.screen.viewtree import ViewTree

_PUNCTUATION = ".,:;!?()[]/።፣፤"
_DIGITS = frozenset("0123456789")
MAX_AMOUNT_CHARS = 20


class Amount(NamedTuple):  # a tuple: a 64 KB screen may hold thousands
    number: str  # as written: digits, with "," and "." between them
    currency: tuple[str, str] | None  # (English, Amharic)

    def said(self, english: bool) -> str:
        assert self.currency is not None
        return f"{self.number} {self.currency[0 if english else 1]}"


class Money:
    """What the screen shows of money, read once per question on first need, in one pass that
    stops as soon as it knows: the only amount with a currency it shows, and the only currency
    it names ("Amount (ETB)"); None for either when it shows none, or two that differ."""

    def __init__(self, nodes: ViewTree) -> None:
        self._nodes = nodes
        self._read: tuple[Amount | None, tuple[str, str] | None] | None = None

    # Each word costs a look-up: only a currency, or a number beside one, is read further.

    def read(self) -> tuple[Amount | None, tuple[str, str] | None]:
        if self._read is None:
            amounts: set[Amount] = set()
            currencies: set[tuple[str, str] | None] = set()
            for text in self._nodes.all_texts():
                if len(amounts) > 1 and len(currencies) > 1:
                    break  # neither is the only one
                for amount in _priced(_words(text)):
                    currencies.add(amount.currency)
                    if amount.number:
                        amounts.add(amount)
            self._read = (
                next(iter(amounts)) if len(amounts) == 1 else None,
                next(iter(currencies)) if len(currencies) == 1 else None,
            )
        return self._read


def _words(text: str) -> list[str]:
    """The words of `text`, compatibility forms composed and case folded, without the
    punctuation around them: read by plain scanning, in one pass."""
    words = unicodedata.normalize("NFKC", text).casefold().split()
    return [stripped for word in words if (stripped := word.strip(_PUNCTUATION))]


def amounts(text: str) -> Iterator[Amount]:
    """The numbers in `text`, each with the currency written beside it ("5,000 ETB", "$12.50",
    "ብር 300"), or none. A number is digits with "," or "." between them."""
    return _amounts_in(_words(text))


def _priced(words: list[str]) -> Iterator[Amount]:
    """Each currency `words` name, with the number beside it ("" when there is none): "5,000
    ETB", "ETB 300", "$12.50"."""
    for at, word in enumerate(words):
        currency = CURRENCIES.get(word)
        if currency is not None:
            beside = [w for w in words[max(0, at - 1) : at + 2 : 2] if _is_number(w)]
            yield Amount(beside[0] if beside else "", currency)
        elif symbol := _symbol(word):
            number = word.strip(CURRENCY_SYMBOLS)
            yield Amount(number if _is_number(number) else "", CURRENCIES[symbol])


def _symbol(word: str) -> str:
    """The currency symbol a word starts or ends with ("$12.50", "12€"), else ""."""
    return next((end for end in (word[0], word[-1]) if end in CURRENCY_SYMBOLS), "")


def _amounts_in(words: list[str]) -> Iterator[Amount]:
    for at, word in enumerate(words):
        symbol = _symbol(word)
        number = word.strip(CURRENCY_SYMBOLS)
        if not _is_number(number):
            continue
        currency = CURRENCIES.get(symbol)
        for near in (words[at + 1 : at + 2], words[max(0, at - 1) : at]):
            if currency is None and near:
                currency = CURRENCIES.get(near[0])
        yield Amount(number, currency)


def only_amount(typed: str) -> Amount | None:
    """A typed text that is an amount and nothing else ("5000", "5,000 ETB"): a note that holds
    a number ("see you at 6") is no amount."""
    words = _words(typed)
    found = list(amounts(typed))
    if len(found) != 1 or len(words) > 1 + (found[0].currency is not None):
        return None
    return found[0]


def _is_number(word: str) -> bool:
    return (
        0 < len(word) <= MAX_AMOUNT_CHARS
        and word[0] in _DIGITS
        and word[-1] in _DIGITS
        and all(char in _DIGITS or char in ",." for char in word)
        and ",," not in word
        and ".." not in word
    )
