"""How `core.text` reads text as a person sees it: every letterlike symbol reads as its letter,
and a space-like or invisible character inside a word does not split it, while the spaces
between words keep them apart."""

from __future__ import annotations

import time

import pytest
from anyascii import anyascii

from lisan.core.text import fold, folds
from lisan.plans.words import reads_destructive


def _holds(text: str, word: str) -> bool:
    """Whether some reading of `text` holds `word` as a whole word."""
    return any(word in reading.split() for reading in folds(text))


class TestEveryLetterlikeSymbolReadsAsItsLetter:
    """Enclosed, circled, parenthesized, squared and negative squared letters, regional
    indicator symbols, fullwidth and mathematical letters (with the letterlike symbols that fill
    the mathematical alphabets' holes) and small capitals read as the letters they show, even
    where Unicode gives them no decomposition."""

    @pytest.mark.parametrize(
        "text",
        [
            "\u24d3\u24d4\u24db\u24d4\u24e3\u24d4",  # circled small
            "\u24b9\u24ba\u24c1\u24ba\u24c9\u24ba",  # circled capital
            "\u249f\u24a0\u24a7\u24a0\u24af\u24a0",  # parenthesized
            "\U0001f133\U0001f134\U0001f13b\U0001f134\U0001f143\U0001f134",  # squared
            "\U0001f173\U0001f174\U0001f17b\U0001f174\U0001f183\U0001f174",  # negative squared
            "\U0001f153\U0001f154\U0001f15b\U0001f154\U0001f163\U0001f154",  # negative circled
            "\U0001f1e9\U0001f1ea\U0001f1f1\U0001f1ea\U0001f1f9\U0001f1ea",  # regional indicators
            "\uff44\uff45\uff4c\uff45\uff54\uff45",  # fullwidth
            "\U0001d41d\U0001d41e\U0001d425\U0001d41e\U0001d42d\U0001d41e",  # mathematical bold
            "\U0001d555\U0001d556\U0001d55d\U0001d556\U0001d565\U0001d556",  # double-struck
            "\U0001d4b9\u212f\U0001d4c1\u212f\U0001d4c9\u212f",  # script, with the letterlike e
            "\u1d05\u1d07\u029f\u1d07\u1d1b\u1d07",  # small capitals
        ],
        ids=[
            "circled small", "circled capital", "parenthesized", "squared", "negative squared",
            "negative circled", "regional indicators", "fullwidth", "mathematical bold",
            "double-struck", "script with letterlike holes", "small capitals",
        ],
    )  # fmt: skip
    def test_a_word_in_letterlike_symbols_reads_as_the_word(self, text: str) -> None:
        assert _holds(text, "delete")
        assert reads_destructive(text)

    def test_the_letterlike_holes_of_the_script_alphabet_read_as_their_letters(self) -> None:
        assert fold("\u212f\u2113\u210a") == "elg"

    @pytest.mark.parametrize("text", ["\U0001f170\U0001f17f\U0001f17f", "\U0001f18f\U0001f17f"])
    def test_a_negative_squared_label_reads_as_its_letters(self, text: str) -> None:
        assert _holds(text, anyascii(text).lower())

    @pytest.mark.parametrize("text", ["\u2713", "\u2714", "\u2717", "\u2715", "\u2611"])
    def test_a_check_mark_or_a_cross_is_no_letter(self, text: str) -> None:
        """A check mark transliterates as "v" and a ballot cross as "x": read as letters, an
        unlabelled confirm would name an act of its own and lose its message's meaning."""
        assert fold(text).strip() == ""

    def test_a_squared_word_reads_as_its_word(self) -> None:
        assert fold("\U0001f197") == "OK"

    @pytest.mark.parametrize("text", ["\U0001f5d1", "\U0001f4f2", "\u2192", "\u2764"])
    def test_a_pictograph_is_no_letter(self, text: str) -> None:
        """A pictograph's transliteration is its name (":wastebasket:"), not letters it shows."""
        assert fold(text).strip() == ""


NARROW_SPACES = {
    "thin": "\u2009",
    "hair": "\u200a",
    "six-per-em": "\u2006",
    "punctuation": "\u2008",
    "figure": "\u2007",
    "narrow no-break": "\u202f",
    "en": "\u2002",
    "ideographic": "\u3000",
}
INVISIBLE = {
    "zero-width space": "\u200b",
    "zero-width joiner": "\u200d",
    "zero-width non-joiner": "\u200c",
    "word joiner": "\u2060",
    "soft hyphen": "\u00ad",
    "Mongolian vowel separator": "\u180e",
}


class TestNoSpaceLikeCharacterInsideAWordSplitsIt:
    """Every space-like or invisible character inside a word is removed before reading,
    whatever the letter count around it: a narrow space is read both as a separator and as
    nothing, an invisible one as nothing."""

    @pytest.mark.parametrize("space", NARROW_SPACES.values(), ids=NARROW_SPACES.keys())
    @pytest.mark.parametrize("word", ["De{}lete", "Del{}ete", "Delet{}e", "S{}end", "Se{}nd"])
    def test_a_narrow_space_inside_a_word_is_removed(self, word: str, space: str) -> None:
        text = word.format(space)
        assert _holds(text, text.replace(space, "").lower())
        assert reads_destructive(text)

    @pytest.mark.parametrize("space", INVISIBLE.values(), ids=INVISIBLE.keys())
    def test_an_invisible_character_inside_a_word_is_removed(self, space: str) -> None:
        assert fold(f"De{space}lete") == "delete"

    def test_a_letter_spaced_off_by_narrow_and_ordinary_spaces_joins_the_word(self) -> None:
        assert _holds("Del\u200ae te", "delete")
        assert reads_destructive("Del\u200ae te")

    @pytest.mark.parametrize("text", ["Pay\u2009now", "\u1230\u122d\u2009\u12dd"])
    def test_a_narrow_space_reads_joined_in_any_script(self, text: str) -> None:
        assert reads_destructive(text)


class TestSpacesBetweenWordsStaySeparators:
    """An ordinary space and a no-break space between words keep them apart, and reading a
    narrow space as nothing never hides a word: the reading with it as a separator stays."""

    @pytest.mark.parametrize("space", [" ", "\u00a0"])
    def test_ordinary_and_no_break_spaces_keep_words_apart(self, space: str) -> None:
        assert folds(f"Photos{space}Videos") == ("photos videos",)

    @pytest.mark.parametrize("space", NARROW_SPACES.values(), ids=NARROW_SPACES.keys())
    def test_a_word_after_a_narrow_space_is_still_read_at_a_word_start(self, space: str) -> None:
        assert _holds(f"Now{space}delete", "delete")
        assert reads_destructive(f"Now{space}delete")

    @pytest.mark.parametrize(
        "text", ["Start week on Sunday", "Add a photo", "50%", "a b c", "I O U"]
    )
    def test_joining_finds_no_act_in_ordinary_labels(self, text: str) -> None:
        assert not reads_destructive(text)


class TestFoldingStaysLinear:
    """Folding reads untrusted screen text: its cost grows with the text's length only, for a
    long unbroken word, many blank lines, many spaced letters and many near-identical words."""

    @pytest.mark.parametrize(
        "text",
        [
            "d" * 100_000,
            "\n" * 60_000,
            "d\u2009" * 30_000,
            "d " * 30_000,
            "\u24d3\U0001f173 " * 20_000,
            " ".join(["deletf"] * 9_000),
        ],
        ids=["long word", "blank lines", "thin-spaced", "spaced", "symbols", "near-identical"],
    )
    def test_a_64_kb_screen_folds_in_well_under_a_second(self, text: str) -> None:
        start = time.process_time()
        folds(text)
        assert time.process_time() - start < 0.5
