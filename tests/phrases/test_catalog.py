"""The phrase catalog itself: every key in both languages, Amharic in Ethiopic, short lines."""

from __future__ import annotations

import unicodedata

import pytest

from lisan.core.locale import Locale
from lisan.phrases.catalog import CATALOG
from lisan.phrases.schemas import PhraseKey
from lisan.phrases.service import phrase
from tests.fixtures.contract import contract

ETHIOPIC = range(0x1200, 0x1380)  # U+1200..U+137F, letters and Ethiopic punctuation
# Besides Ethiopic: what a spoken line may hold (space, question mark, Amharic quotes).
ALLOWED_OTHER = {" ", "?", "«", "»"}
MAX_CHARS = 60


def test_the_keys_are_the_contracts_phrase_keys() -> None:
    assert [key.value for key in PhraseKey] == contract()["components"]["schemas"]["PhraseKey"][
        "enum"
    ]


@pytest.mark.parametrize("language", list(Locale))
def test_every_key_has_a_line_in_every_language(language: Locale) -> None:
    assert list(CATALOG[language]) == list(PhraseKey)
    for key in PhraseKey:
        assert phrase(language, key).strip() == phrase(language, key) != ""


def test_the_languages_are_the_contracts_locales() -> None:
    assert sorted(CATALOG) == sorted(contract()["components"]["schemas"]["Locale"]["enum"])


@pytest.mark.parametrize("key", list(PhraseKey))
def test_amharic_lines_are_ethiopic_script(key: PhraseKey) -> None:
    line = phrase(Locale.AM_ET, key)
    strangers = {c for c in line if ord(c) not in ETHIOPIC and c not in ALLOWED_OTHER}
    assert not strangers, f"{key}: {sorted(strangers)}"
    letters = [c for c in line if unicodedata.category(c).startswith("L")]
    assert letters
    assert all(ord(c) in ETHIOPIC for c in letters)
    assert unicodedata.is_normalized("NFC", line)


@pytest.mark.parametrize("language", list(Locale))
def test_lines_are_short_enough_to_speak_at_once(language: Locale) -> None:
    for key in PhraseKey:
        assert len(phrase(language, key)) <= MAX_CHARS, key


def test_english_lines_are_plain_ascii_sentences() -> None:
    for key in PhraseKey:
        line = phrase(Locale.EN_US, key)
        assert line.isascii(), key
        assert line[0].isupper(), key
        assert line[-1] in ".?", key


def test_the_lines_are_the_agreed_wording() -> None:
    assert phrase(Locale.AM_ET, PhraseKey.ACK) == "እሺ።"
    assert phrase(Locale.AM_ET, PhraseKey.CONFIRM) == "እርግጠኛ ነዎት? ለመቀጠል «አዎ» ይበሉ።"
    assert phrase(Locale.AM_ET, PhraseKey.ERR_BILLING) == "የደንበኝነት ምዝገባዎ ንቁ አይደለም።"
    assert phrase(Locale.EN_US, PhraseKey.RETRY) == (
        "Sorry, I didn't catch that. Please say it again."
    )
    assert phrase(Locale.EN_US, PhraseKey.ERR_BILLING) == "Your subscription isn't active."


def test_phrase_takes_the_wire_strings_too() -> None:
    assert phrase(Locale("en-US"), PhraseKey("ACK")) == "Okay."


def test_the_catalog_cannot_be_changed_at_run_time() -> None:
    with pytest.raises(TypeError):
        CATALOG[Locale.EN_US][PhraseKey.ACK] = "Yo."  # type: ignore[index]
