"""The phrase catalog: what the phone speaks from pre-synthesised audio."""

from __future__ import annotations

import json

from lisan.core.locale import Locale
from lisan.phrases.catalog import CATALOG
from lisan.phrases.schemas import PhraseCatalog, PhraseKey

DEFAULT_LANGUAGE = Locale.AM_ET


def phrase(language: Locale, key: PhraseKey) -> str:
    return CATALOG[language][key]


def lines(language: Locale) -> dict[PhraseKey, str]:
    """Every line of the language, in PhraseKey order."""
    return {key: phrase(language, key) for key in PhraseKey}


def catalog(language: Locale) -> PhraseCatalog:
    return PhraseCatalog(language=language, phrases=lines(language))


def export_json(language: Locale) -> str:
    """The catalog of one language as readable JSON (Ethiopic kept as is, not \\u-escaped)."""
    return json.dumps(
        {key.value: line for key, line in lines(language).items()}, ensure_ascii=False, indent=2
    )
