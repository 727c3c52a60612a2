"""Text folded so that what looks alike compares alike: the safety rules read screen labels
through it, so "Delete" spelled with a Cyrillic "e" (U+0435), with a combining grapheme joiner
inside, in fullwidth letters, or "ሰርዝ" in a homophone spelling (U+1220 for U+1230) all read as
what a person sees.

`skeleton` follows Unicode TS #39 ("Security Mechanisms"): compatibility forms are decomposed
(NFKD), invisible format characters (Cf) and marks (Mn, Me) are dropped, and every character is
replaced by the prototype of its confusables class. The classes come from `confusables.json` as
the maintained `confusable-homoglyphs` package ships it (built from Unicode's confusables.txt).
That file lists each source-prototype pair in both directions, so the prototype is recovered as
the centre of its class: the one member with several partners, or the multi-character one ("rn"
for "m"). A class of exactly two is represented by the smaller code point; any fixed choice gives
the same classes, and classes are all a comparison needs.

Ethiopic writes some sounds with several letter series that Amharic readers take as one
(the series of U+1230 and U+1220, U+1338 and U+1340, U+12A0 and U+12D0, and U+1200, U+1210
and U+1280): they are folded to one series first.

TS #39 skeletons are case-sensitive ("I" looks like "l", "i" does not), so `folds` gives the
two readings a case-insensitive match needs: the skeleton of the case-folded text, and that of
the case-folded skeleton (a Cyrillic capital "Te" looks like "T" until it is case-folded).
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib import resources

_DROPPED = frozenset({"Cf", "Mn", "Me"})
_BIDI_MARKS = str.maketrans("", "", "\u200e\u200f")  # the data file's display artifacts

# Ethiopic homophone series (8 code points each: ä u i a e ə o wa) folded onto one spelling.
_HOMOPHONE_SERIES = {0x1220: 0x1230, 0x1340: 0x1338, 0x12D0: 0x12A0, 0x1210: 0x1200, 0x1280: 0x1200}
_HOMOPHONES = {
    chr(source + offset): chr(target + offset)
    for source, target in _HOMOPHONE_SERIES.items()
    for offset in range(7)
}


class _Translation(dict[int, str | None]):
    """`str.translate`'s table, filled on first sight of each code point: dropped (None), or its
    homophone's and then its class's prototype. Translating in C keeps a 64 KiB screen's labels
    to a few milliseconds; the table holds only code points that were seen."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        value = None
        if unicodedata.category(char) not in _DROPPED:
            char = _HOMOPHONES.get(char, char)
            value = _prototypes().get(char, char)
        self[code] = value
        return value


_TABLE = _Translation()


def skeleton(text: str) -> str:
    """What `text` looks like, case kept (TS #39 skeleton, with Ethiopic homophones folded)."""
    return unicodedata.normalize("NFKD", text).translate(_TABLE)


def folds(text: str) -> tuple[str, str]:
    """The two case-insensitive readings of `text` (see the module's docstring)."""
    return skeleton(text.casefold()), skeleton(skeleton(text).casefold())


def fold(text: str) -> str:
    """One case-insensitive reading, for text we write ourselves (word lists, app names)."""
    return skeleton(text.casefold())


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each character that has look-alikes, mapped to its class's prototype (itself omitted)."""
    data = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    partners: dict[str, list[str]] = {}
    for source, entries in json.loads(data).items():
        key = source.translate(_BIDI_MARKS)
        partners.setdefault(key, []).extend(e["c"].translate(_BIDI_MARKS) for e in entries)
    prototypes: dict[str, str] = {}
    for char, others in partners.items():
        if len(char) != 1 or len(others) != 1:
            continue  # a prototype (the centre of its class), or a multi-character sequence
        (other,) = others
        # The other is the centre (a multi-character prototype, or one with several partners),
        # or this is a class of two, represented by its smaller code point.
        if len(other) > 1 or len(partners.get(other, ())) > 1 or other < char:
            prototypes[char] = other
    return prototypes
