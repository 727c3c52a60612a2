"""The words of a grammar and their readings: which words a JSGF rule says (outside its rule
references), and a pronunciation for each, Ge'ez words read as Amharic and Latin ones as
English (names with their own reading)."""

from __future__ import annotations

import re

from lisan.core.text import latin_words
from lisan.providers.local.phones import Pronouncer

_JSGF_WORD = re.compile(r"(?<![<\w])([a-z0-9]+|[\u1200-\u137f]+)(?![\w>])")


def rule_words(rule: str) -> list[str]:
    body = rule.split("=", 1)[1]
    return _JSGF_WORD.findall(re.sub(r"<[^>]*>", " ", body))


def pronounce(
    words: set[str], named: set[str], pronouncer: Pronouncer, *, phonetic: bool
) -> dict[str, list[str]]:
    """Readings of each word that has one: Ge'ez words in Amharic, Latin ones in English (names
    with a phonetic alternate; every Latin word with one when `phonetic`). A grammar word is
    Latin when it is its own Latin word (`core.text.latin_words`), else Ge'ez."""
    latin = sorted(w for w in words if latin_words(w) == (w,))
    ethiopic = sorted(words.difference(latin))
    result = pronouncer.amharic(ethiopic)
    result.update(pronouncer.english([w for w in latin if w not in named], phonetic=phonetic))
    result.update(
        pronouncer.english([w for w in latin if w in named], names=True, phonetic=phonetic)
    )
    return {word: readings for word, readings in result.items() if readings}
