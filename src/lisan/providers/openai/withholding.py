"""The user's words in a provider's error answer: which words of an excerpt are the user's
(`Sent`), recognised however the server spelled them back, and withheld (`Withholding`).

Escapes are decoded first (`unescaped`: percent-encoding, `\\xNN`, `\\uXXXX`, HTML entities),
so the user's words are recognised however the server spelled them back. Then every word of the
user's is replaced by WITHHELD, in the message and in the structured fields alike: a word that
equals a word of a vocabulary term or contains one (of MIN_CONTAINED_CHARS or more: a
two-letter Ge'ez name with a suffix), and, for the planner, a word that equals any word of the
transcript or the screen. Words are compared as `core.text.fold` reads them (any case,
look-alike letters, Ethiopic homophones). Every step is linear in what it reads: no pattern
backtracks, and none is made per term.
"""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass

import regex

from lisan.core.text import fold


@dataclass(frozen=True, slots=True)
class Sent:
    """The user's text a request carried, which its error answer must never put in a log:
    vocabulary `terms` (withheld wherever a word of the error equals or contains one of their
    words) and `texts` (a transcript, a screen: each of their words is withheld wherever the
    error quotes it, alone or not)."""

    terms: Sequence[str] = ()
    texts: Sequence[str] = ()


# A vocabulary word this long is withheld inside a longer word too ("ዳዊ" in "ዳዊት", a name with a
# case suffix); a shorter one only where a word equals it.
MIN_CONTAINED_CHARS = 2
UNESCAPE_PASSES = 3  # a percent-encoded entity, a JSON-escaped percent-encoding: one pass each
WITHHELD = "[withheld]"


# How a server may spell back what it was sent: percent-encoded or `\xNN` UTF-8 bytes, JSON's
# `\uXXXX` (surrogate pairs included), Python's `\UXXXXXXXX`, HTML's numeric and named
# entities. Each alternative is a run of fixed-size units or a bounded name, taken whole
# (possessive): one pass reads each character a bounded number of times.
_ESCAPED = re.compile(
    r"(?:%[0-9A-Fa-f]{2})++"
    r"|(?:\\x[0-9A-Fa-f]{2})++"
    r"|(?:\\u[0-9A-Fa-f]{4})++"
    r"|\\U[0-9A-Fa-f]{8}"
    r"|&(?:\#[0-9]{1,7}+|\#[xX][0-9A-Fa-f]{1,6}+|[A-Za-z][A-Za-z0-9]{1,31}+);?"
)


def unescaped(text: str) -> str:
    """`text` with every escape `_ESCAPED` knows decoded, again on the result while that
    changes it (an escape of an escape), at most UNESCAPE_PASSES times."""
    for _ in range(UNESCAPE_PASSES):
        decoded = _ESCAPED.sub(_decoded, text)
        if decoded == text:
            break
        text = decoded
    return text


def _decoded(escape: re.Match[str]) -> str:
    run = escape[0]
    if run[0] == "&":
        return html.unescape(run)
    if run[0] == "%":
        return bytes.fromhex(run.replace("%", "")).decode("utf-8", "replace")
    kind, digits = run[1], run.replace("\\" + run[1], "")
    if kind == "x":
        return bytes.fromhex(digits).decode("utf-8", "replace")
    if kind == "u":
        return bytes.fromhex(digits).decode("utf-16-be", "replace")
    code = int(digits, 16)
    return chr(code) if code <= sys.maxunicode else run


# A word of an error, read whole: letters, digits and marks, and what renders as nothing inside
# them (a zero-width space or a soft hyphen never splits a name into pieces no rule knows).
_WORD = regex.compile(r"[\w\p{M}\p{Cf}\p{Default_Ignorable_Code_Point}]++")
_WITHHELD_RUN = re.compile(f"{re.escape(WITHHELD)}(?: {re.escape(WITHHELD)})++")


class Withholding:
    """Which words of an error answer are the user's (`Sent`), read as `core.text.fold` reads
    text (any case, look-alike letters, Ethiopic homophones). The sent words are a set and the
    error's words are looked up in it; a word is searched for vocabulary words inside it by
    the lengths those have, each of its slices of such a length looked up in a set: no
    pattern per term, and the work is the error's (bounded) length times those lengths."""

    def __init__(self, sent: Sent) -> None:
        words: set[str] = set()
        contained: set[str] = set()
        for term in sent.terms:
            folded = fold(term).split()
            words.update(folded)
            contained.update(w for w in (*folded, "".join(folded)) if len(w) >= MIN_CONTAINED_CHARS)
        for text in sent.texts:
            words.update(fold(text).split())
        self._words = frozenset(words)
        self._contained = frozenset(contained)
        self._lengths = sorted({len(word) for word in contained})

    def apply(self, text: str) -> str:
        """`text` with every word of the user's replaced by WITHHELD, one marker for a run of
        them (punctuation around a word stays: "body.prompt.[withheld]")."""
        if not self._words:
            return text
        text = _WORD.sub(lambda word: WITHHELD if self._says(word[0]) else word[0], text)
        return _WITHHELD_RUN.sub(WITHHELD, text)

    def _says(self, chunk: str) -> bool:
        words = fold(chunk).split()
        if any(word in self._words for word in words):
            return True
        joined = "".join(words)
        return any(
            joined[start : start + length] in self._contained
            for length in self._lengths
            if length <= len(joined)
            for start in range(len(joined) - length + 1)
        )
