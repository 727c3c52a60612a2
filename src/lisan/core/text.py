"""The one place text is folded for comparison: every rule that compares strings (the safety
rules' destructive words, the offline grammar's words, an app's spoken name) reads text here.

`fold` reads text as a person sees it, so "Delete" spelled with a Cyrillic "e" (U+0435), with a
combining grapheme joiner or a Hangul filler inside, in fullwidth, circled, squared or
mathematical letters, or "ሰርዝ" in a homophone spelling (U+1220 for U+1230) all read as what a
person sees. Each code point is decided once, on its own (so a decision can see what it was
before decomposition):
1. compatibility forms are decomposed (NFKD): fullwidth, circled (ⓓ), squared (🄳) and
   mathematical letters (bold, double-struck, script, and the letterlike script e, l and g
   that fill the holes of the mathematical alphabets) become their letters. A symbol whose
   decomposition, or failing one (for a symbol Unicode names a letter or a digit) its
   `anyascii` transliteration, is only ASCII letters or digits once the parentheses and full
   stop that enclose them are dropped reads as those letters: parenthesized (⒟), negative
   squared and circled (🅳, 🅓), and regional indicator letters (🇩); a pictograph (🗑) or a
   check mark (✓, which transliterates as "v") is no letter;
2. what renders as nothing is dropped: every `Default_Ignorable_Code_Point` (fillers of any
   script, variation selectors, tag characters, zero-width spaces and joiners, the word joiner,
   the soft hyphen, the Mongolian vowel separator), every format character (Cf: bidi controls,
   interlinear annotation anchors), unassigned and private-use code points, surrogates, and
   marks (Mn, Me);
3. Ethiopic homophone series that Amharic readers take as one (those of U+1230 and U+1220,
   U+1338 and U+1340, U+12A0 and U+12D0, and U+1200, U+1210 and U+1280) become one series;
4. every character becomes the prototype of its confusables class (Unicode TS #39), from the
   `confusables.json` the maintained `confusable-homoglyphs` package ships. That file lists each
   pair in both directions, so the prototype is recovered as the centre of its class: the one
   member with several partners, or the multi-character one ("rn" for "m"); a class of exactly
   two is represented by its smaller code point (classes are all a comparison needs);
5. what is then neither a letter, a digit nor a spacing mark is a separator: one space (a line
   break stays one, so texts joined by lines stay apart). So "btn_remove", "re-send" and
   "delete…" are words apart, and a filler before a word cannot join it to what precedes it.

A space other than the ordinary one and the no-break space (every other `Zs`: thin, hair,
six-per-em, punctuation, figure, narrow no-break...) is drawn so narrow, or used so rarely
between words, that "De\u2009lete" reads "Delete": `fold` keeps it a separator, and `folds`
reads each text both ways, with such spaces as separators and with them removed, so joining
never hides a word ("Now\u2009delete" still holds "delete" at a word start).

TS #39 skeletons are case-sensitive ("I" looks like "l", "i" does not), so `folds` gives the
readings a case-insensitive match needs: the skeleton of the case-folded text, that of the
case-folded skeleton (a Cyrillic capital "Te" looks like "T" until it is case-folded), and the
second split into word pieces at camelCase boundaries ("deleteButton" reads "delete button").
The split is a reading of its own, never the only one: "DeLeTe" split is "de le te". Beside
them, a letter standing alone between spaces is read joined to the words on both sides, so
letters spaced apart ("D e l e t e", "Del e te") read as the word they spell, whatever the
letter count of their neighbours.

The word functions below (`latin_words`, `ethiopic_words`, `name_words`) serve the grammar and
app names: they drop the same invisible code points first, so no word is ever split or joined by
something a person cannot see.

The translation runs in C through `str.translate` over a table filled on first sight of each
code point, so a screen costs one pass per reading whatever its size.
"""

from __future__ import annotations

import functools
import json
import re
import unicodedata
from importlib import resources

import regex
from anyascii import anyascii

# Step 2: what renders as nothing (the `regex` package knows the derived Unicode properties).
_INVISIBLE = regex.compile(
    r"[\p{Default_Ignorable_Code_Point}\p{Cf}\p{Cn}\p{Co}\p{Cs}\p{Mn}\p{Me}]"
)
_WORD_CATEGORIES = frozenset({"L", "N"})
_SPACING_MARK = "Mc"
_BIDI_MARKS = str.maketrans("", "", "\u200e\u200f")  # the data file's display artifacts

# Ethiopic homophone series (8 code points each: ä u i a e ə o wa) folded onto one spelling.
_HOMOPHONE_SERIES = {0x1220: 0x1230, 0x1340: 0x1338, 0x12D0: 0x12A0, 0x1210: 0x1200, 0x1280: 0x1200}
_HOMOPHONES = {
    chr(source + offset): chr(target + offset)
    for source, target in _HOMOPHONE_SERIES.items()
    for offset in range(7)
}
# A lower-case letter then an upper-case one, or an upper-case one then a capitalised word.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")


def is_invisible(char: str) -> bool:
    """Whether a code point renders as nothing (step 2 of the module's docstring)."""
    return _INVISIBLE.match(char) is not None


def _is_word_char(char: str) -> bool:
    category = unicodedata.category(char)
    return category[0] in _WORD_CATEGORIES or category == _SPACING_MARK


def _separated(char: str) -> str:
    """A word character as it is; a line break as it is (texts joined by lines stay apart);
    anything else as one space."""
    return char if char == "\n" or _is_word_char(char) else " "


# A space drawn inside a word as easily as between two (see the module's docstring): marked in
# the translation, then read both as a separator and as nothing. NUL, which renders as nothing,
# is the mark, so a marked reading translated again keeps its marks.
_JOIN = "\x00"
_NARROW_SPACE = regex.compile(r"[\p{Zs}\x00--[\x20\xa0]]", regex.VERSION1)
_SYMBOL = regex.compile(r"[\p{S}\p{No}]")
_ENCLOSING = "()."
_NAMED_LETTER = re.compile(r"\b(?:LETTER|DIGIT)\b|^(?:NEGATIVE )?SQUARED ")


def _letterlike(char: str) -> str:
    """Step 1 of the module's docstring for one code point: its decomposition, or for a symbol
    that shows letters or digits, those."""
    decomposed = unicodedata.normalize("NFKD", char)
    if _SYMBOL.match(char) is not None:
        # Transliterated only when Unicode names the symbol a letter, a digit or a squared word
        # ("SQUARED OK"): a check mark transliterates as "v" and a ballot cross as "x", yet
        # they are no words.
        named = _NAMED_LETTER.search(unicodedata.name(char, "")) is not None
        shown = decomposed if decomposed != char else anyascii(char) if named else ""
        shown = shown.strip(_ENCLOSING)
        if shown.isascii() and shown.isalnum():
            return shown
    return decomposed


class _Translation(dict[int, str | None]):
    """`str.translate`'s table, filled on first sight of each code point: a narrow space as the
    join mark; else its letters (step 1), each dropped if invisible, else its homophone's and
    then its class's prototype, with separators as one space."""

    def __missing__(self, code: int) -> str | None:
        char = chr(code)
        if _NARROW_SPACE.match(char) is not None:
            value: str | None = _JOIN
        else:
            value = "".join(_visible_prototype(c) for c in _letterlike(char)) or None
        self[code] = value
        return value


def _visible_prototype(char: str) -> str:
    if is_invisible(char):
        return ""
    homophone = _HOMOPHONES.get(char, char)
    prototype = _prototypes().get(homophone, homophone)
    return "".join(_separated(c) for c in prototype)


_TABLE = _Translation()


def _marked(text: str) -> str:
    """Steps 1 to 5, with narrow spaces as the join mark."""
    return text.translate(_TABLE)


def skeleton(text: str) -> str:
    """What `text` looks like, case kept: steps 1 to 5 of the module's docstring."""
    return _marked(text).replace(_JOIN, " ")


def fold(text: str) -> str:
    """One case-insensitive reading, for text we write ourselves (word lists, app names)."""
    return skeleton(text.casefold())


def folds(text: str) -> tuple[str, ...]:
    """The case-insensitive readings of `text` (see the module's docstring); any of them may
    hold a word a person reads there. Beside them, spellings a person still reads as the word:
    runs inside a right-to-left override as they are drawn (reversed), Latin look-alikes outside
    the confusables table (small capitals, phonetic and letterlike forms) as the letters they
    show; each with narrow spaces as separators and removed, and with letters standing alone
    between spaces joined to their neighbours."""
    seen = _marked(text)
    marked = [_marked(text.casefold()), _marked(seen.casefold())]
    split = _CAMEL.sub(" ", seen)
    if split != seen:
        marked.append(_marked(split.casefold()))
    drawn = _OVERRIDDEN.sub(lambda run: run[1][::-1], text)
    if drawn != text:
        marked.append(_marked(drawn.casefold()))
    shown = _LOOKALIKE.sub(lambda letter: anyascii(letter[0]), text)
    if shown != text:
        marked.append(_marked(shown.casefold()))
    readings: dict[str, None] = {}
    for reading in marked:
        readings[reading.replace(_JOIN, " ")] = None
        if _JOIN in reading:
            readings[reading.replace(_JOIN, "")] = None
    for reading in tuple(readings):
        readings[_LONE_LETTER_SPACE.sub("", reading)] = None
    return tuple(readings)


# A right-to-left override (U+202E) draws the letters up to its pop (U+202C), or the end of the
# line, right to left: stored "eteleD", a person reads "Delete".
_OVERRIDDEN = re.compile("\u202e([^\u202c\n]*)")
# Latin look-alikes the confusables table leaves alone: IPA and phonetic extensions (small
# capitals such as "ᴅᴇʟᴇᴛᴇ"), modifier letters and letterlike symbols.
_LOOKALIKE = re.compile("[\u0250-\u02af\u1d00-\u1dbf\u2100-\u214f\ua720-\ua7ff]")
# A space beside a letter that stands alone between spaces: "d e l e t e", "del e te". Only
# fixed-width lookarounds around one character: linear in the text.
_LONE_LETTER_SPACE = re.compile(r"(?<=(?<!\w)[^\W\d_]) (?=\w)|(?<=\w) (?=[^\W\d_](?!\w))")


def visible(text: str) -> str:
    """`text` decomposed (NFKD) with what renders as nothing dropped: letters keep their case."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(char for char in decomposed if not is_invisible(char))


_LATIN_WORD = re.compile(r"[a-z0-9]+")
_ETHIOPIC_WORD = re.compile(r"[\u1200-\u137f]+")
_ETHIOPIC = re.compile(r"[\u1200-\u137f]")


def latin_words(text: str) -> tuple[str, ...]:
    """Latin words of `text` without their accents, lower case, digits kept: how a label is
    said in English. Other scripts are not English words."""
    return tuple(_LATIN_WORD.findall(visible(text).lower()))


def ethiopic_words(text: str) -> tuple[str, ...]:
    """Ge'ez words as they stand; a text with no Ge'ez letter gives its Latin words."""
    normal = unicodedata.normalize("NFC", "".join(c for c in text if not is_invisible(c)))
    if not _ETHIOPIC.search(normal):
        return latin_words(normal)
    return tuple(_ETHIOPIC_WORD.findall(normal))


# Words that name nothing on a screen by themselves ("the", "to"), and the words a command is
# said with ("tap", "go to"): what is left of a transcript is what names its target
# (`naming_words`; the plan rules' `plans.naming`, a transcriber's word confidence).
FUNCTION_WORDS = frozenset(
    {"a", "an", "the", "to", "on", "in", "at", "of", "for", "from", "with", "and", "or", "my",
     "me", "it", "its", "this", "that", "is", "be", "please"}
)  # fmt: skip
COMMAND_WORDS = frozenset(
    {"tap", "press", "click", "touch", "hit", "select", "choose", "open", "go", "show"}
)


def naming_words(text: str) -> tuple[str, ...]:
    """The Latin words of `text` that may name something: not a function word, not a word a
    command is said with."""
    return tuple(w for w in latin_words(text) if w not in FUNCTION_WORDS | COMMAND_WORDS)


def name_words(name: str) -> list[str]:
    """A name in any script as lower-case Latin words: marks dropped, transliterated."""
    return _LATIN_WORD.findall(anyascii(visible(name)).lower())


# Ge'ez writes a consonant and its vowel as one syllable, eight to a row of code points (ä u i a
# e ə o, then the consonant with w): the row is the consonant. A few rows hold only a
# consonant's labialized forms (qʷ, qhʷ, xʷ, kʷ, kxʷ, gʷ): they are that consonant's row.
_LABIALIZED_ROWS = {0x1248: 0x1240, 0x1258: 0x1250, 0x1288: 0x1280, 0x12B0: 0x12A8,
                    0x12C0: 0x12B8, 0x1310: 0x1308}  # fmt: skip
_CONSONANTS = {
    code: chr(_LABIALIZED_ROWS.get(code - code % 8, code - code % 8))
    for code in range(0x1200, 0x135B)
}


def consonants(text: str) -> str:
    """Each Ge'ez syllable of `text` as its consonant (the first form of its row), all else as
    it is: the consonant skeleton by which Amharic words of one root compare, whatever vowels
    their inflection gives them ("ሰርዝ", "ይሰርዙ", "ተሰርዟል" and "መሰረዝ" all hold "ሰረዘ")."""
    return text.translate(_CONSONANTS)


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
