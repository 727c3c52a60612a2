"""Pronunciations in the en-US acoustic model's 39 phones, for any word a grammar may hold.

English words come from cmudict (shipped with pocketsphinx), else from espeak-ng's IPA mapped
onto the model's phones (88% of cmudict's words come out the same that way). Names and the
user's vocabulary terms also get a Swahili reading, which reads Latin letters phonetically, as
Ethiopian names written in Latin letters are ("a-be-be"). Amharic words, in Ge'ez letters, come
from espeak-ng's Amharic voice: ejectives become their plain stops, ɨ is IH, ə is AH, glottal
stops and gemination are dropped.

espeak-ng runs once per batch of unknown words (a line each), and its results are kept in a
bounded cache (the `CACHED_READINGS` most recently used): a screen's labels cost a process start
the first time, nothing after, and a decoder process never holds more than that many words.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from cachetools import LRUCache
from pocketsphinx import get_model_path

MODEL_DIR = Path(get_model_path()) / "en-us"
CMUDICT = MODEL_DIR / "cmudict-en-us.dict"
ESPEAK = "espeak-ng"
ESPEAK_TIMEOUT_S = 5.0

# espeak-ng voices: en-US English, a phonetic reading of Latin letters, Amharic.
ENGLISH, PHONETIC, AMHARIC = "en-us", "sw", "am"
# (word, voice) readings kept per process: a few thousand words, far more than a screen holds.
CACHED_READINGS = 8192

# The acoustic model's 39 phones.
MODEL_PHONES = (
    "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G", "HH",
    "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T", "TH", "UH",
    "UW", "V", "W", "Y", "Z", "ZH",
)  # fmt: skip

# IPA (as espeak-ng writes it) to the model's phones, longest first.
_IPA = {
    "tʃ": "CH", "dʒ": "JH", "ts": "T S", "aɪ": "AY", "aʊ": "AW", "eɪ": "EY", "oʊ": "OW",
    "əʊ": "OW", "ɔɪ": "OY", "ɜː": "ER", "oː": "AO", "ɔː": "AO", "ɝ": "ER", "ɚ": "ER", "ɜ": "ER",
    "p": "P", "b": "B", "β": "B", "t": "T", "d": "D", "k": "K", "ɡ": "G", "g": "G", "q": "K",
    "f": "F", "v": "V", "θ": "TH", "ð": "DH", "s": "S", "z": "Z", "ʃ": "SH", "ʒ": "ZH",
    "h": "HH", "x": "HH", "χ": "HH", "ħ": "HH", "m": "M", "n": "N", "ŋ": "NG", "ɲ": "N Y",
    "l": "L", "ɫ": "L", "ɹ": "R", "r": "R", "ɾ": "T", "ʁ": "R", "j": "Y", "w": "W",
    "i": "IY", "ɪ": "IH", "ᵻ": "IH", "ɨ": "IH", "e": "EY", "ɛ": "EH", "æ": "AE", "a": "AA",
    "ɑ": "AA", "ɒ": "AA", "ɐ": "AH", "ə": "AH", "ʌ": "AH", "ɔ": "AO", "o": "OW", "ʊ": "UH",
    "u": "UW", "y": "IY",
}  # fmt: skip
_IPA_TOKEN = re.compile("|".join(sorted(map(re.escape, _IPA), key=len, reverse=True)))
# Stress, half-length, glottal stops, ejectives, ties; full length (ː) is read with its vowel.
_IGNORED = re.compile(r"[ˈˌˑʔʼ'̩̯̃\-_]")


def to_phones(ipa: str) -> str:
    """espeak-ng IPA as model phones; a doubled consonant (gemination) is said once. The
    American flap (ɾ, "settings") is the model's T, as in cmudict."""
    phones: list[str] = []
    for token in _IPA_TOKEN.findall(_IGNORED.sub("", ipa)):
        for phone in _IPA[token].split():
            if phones and phone == phones[-1] and phone not in _VOWELS:
                continue
            phones.append(phone)
    return " ".join(phones)


_VOWELS = frozenset({"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW"})
_VOWELS |= {"OY", "UH", "UW"}


@functools.cache
def cmudict() -> dict[str, list[str]]:
    """cmudict: word to its pronunciations (alternates in order)."""
    entries: dict[str, list[str]] = {}
    with CMUDICT.open(encoding="utf-8") as lines:
        for line in lines:
            word, _, phones = line.strip().partition(" ")
            entries.setdefault(re.sub(r"\(\d+\)$", "", word), []).append(phones.strip())
    return entries


class Pronouncer:
    """Pronunciations per (word, voice), the `maxsize` most recently used kept."""

    def __init__(self, maxsize: int = CACHED_READINGS) -> None:
        self.cache: LRUCache[tuple[str, str], str] = LRUCache(maxsize)

    def english(
        self, words: Iterable[str], *, names: bool = False, phonetic: bool = False
    ) -> dict[str, list[str]]:
        """Each word's pronunciations: cmudict's, else espeak-ng's en-US reading. `names` adds
        the phonetic reading as an alternate to words cmudict lacks; `phonetic` to every word
        (an Amharic speaker reads "telegram" as written)."""
        words = list(dict.fromkeys(words))
        known = cmudict()
        unknown = [word for word in words if word not in known]
        espoken = self._espeak(unknown, ENGLISH)
        alternate = phonetic or names
        read_as_written = (
            self._espeak(words if phonetic else unknown, PHONETIC) if alternate else {}
        )
        result: dict[str, list[str]] = {}
        for word in words:
            readings = [*known.get(word, [espoken.get(word)]), read_as_written.get(word)]
            result[word] = list(dict.fromkeys(r for r in readings if r))
        return result

    def amharic(self, words: Iterable[str]) -> dict[str, list[str]]:
        words = list(dict.fromkeys(words))
        spoken = self._espeak(words, AMHARIC)
        return {word: [spoken[word]] if spoken.get(word) else [] for word in words}

    def _espeak(self, words: list[str], voice: str) -> dict[str, str]:
        result: dict[str, str] = {}
        missing: list[str] = []
        for word in words:
            cached = self.cache.get((word, voice))
            if cached is None:
                missing.append(word)
            else:
                result[word] = cached
        if missing:  # read from what espeak-ng said: a batch may outgrow the cache
            found = _run_espeak(missing, voice)
            for word in missing:
                result[word] = self.cache[(word, voice)] = found.get(word, "")
        return result


def _run_espeak(words: list[str], voice: str) -> dict[str, str]:
    """One espeak-ng process for the batch, a word a line; a batch whose lines do not come back
    one for one is read word by word instead."""
    lines = _ipa_lines("\n".join(words), voice)
    if len(lines) != len(words):
        lines = [" ".join(_ipa_lines(word, voice)) for word in words]
    return {word: to_phones(line) for word, line in zip(words, lines, strict=True)}


def _ipa_lines(text: str, voice: str) -> list[str]:
    result = subprocess.run(  # noqa: S603 (a fixed program; the text goes on standard input)
        [ESPEAK, "-v", voice, "-q", "--ipa"],
        input=text.encode(),
        capture_output=True,
        timeout=ESPEAK_TIMEOUT_S,
        check=True,
        env={**os.environ, "LC_ALL": "C.UTF-8"},
    )
    return [line.strip() for line in result.stdout.decode().splitlines() if line.strip()]
