"""pocketsphinx decoding: one decoder per worker process of the pool (`pool`), reused, never
shared. A decoder is costly to create (memory and time; see docs/offline-provider.md), is not
thread-safe, and holds the GIL while it decodes.

One decode:
1. the request's closed grammar (`grammar`), with `bestpath` off; a hypothesis the grammar does
   not accept (pocketsphinx returns its best partial path when no path reaches the end) is no
   match;
2. in Amharic, the same audio through a free phone loop (`allphone`): the best any
   English-like sound sequence can score. The grammar's acoustic score against it
   (`confidence.Evidence`) separates in-grammar speech from speech the grammar was forced onto
   (the decoder's own posterior does not: it is about 0.1 for right and wrong alike);
2b. the second ear (`hearing`): Whisper tiny.en scores every command the request allows, and
   pocketsphinx's hypothesis stands only as the two agree (English also takes Whisper's own
   best when it is sure); without Whisper's weights nothing is heard;
3. in English on a screen with a text field, only when the command grammar heard nothing it
   trusts: a dictation search of its own (a dictation verb, "type", "send", "write", then any
   sounds), kept only when the verb scores about as well as the phone loop over its frames,
   then a free-word pass with pocketsphinx's English language model over the audio after the
   verb. It is weak, so it carries no confidence score, and the pipeline reads it back before
   anything runs. Inside the command grammar the dictation branch cost about 6 points of the
   English commands ("tap X" heard as "type ...").
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from cachetools import LRUCache
from pocketsphinx import Decoder, set_loglevel

from lisan.core.locale import Locale
from lisan.providers.local import hearing
from lisan.providers.local.confidence import Evidence, confidence
from lisan.providers.local.coverage import forced_onto_longer_speech
from lisan.providers.local.grammar import EMPTY_SLOTS, Grammar, dictation_verb, is_garbage
from lisan.providers.local.hearing import Judge
from lisan.providers.local.phones import CMUDICT, MODEL_DIR
from lisan.providers.local.whisper.scorer import Scorer

set_loglevel("FATAL")  # pocketsphinx reports a grammar miss on stderr; we read its result

ACOUSTIC_MODEL = MODEL_DIR / "en-us"
PHONE_LM = MODEL_DIR / "en-us-phone.lm.bin"
WORD_LM = MODEL_DIR / "en-us.lm.bin"
COMMAND, PHONES, WORDS, DICTATION = "command", "phones", "words", "dictation"
BYTES_PER_FRAME = 320  # 10 ms of 16 kHz 16-bit audio
# Where every decode's cepstral-mean estimate starts: the mean the decoder settles on over the
# 275 real recorded words the benches read (people, not espeak-ng), so no recording inherits
# another's.
CMN_START = "43.21,4.39,-6.05,0.03,-6.54,-2.08,-2.05,-1.64,0.49,-0.80,-1.29,-0.04,-0.45"
# The dictation verb's log score per frame against the phone loop's over the same frames, below
# which it is no dictation (bench: kept 30 of 40 dictations, refused 12 of 16 commands and 15 of
# 24 sentences that the grammar had taken for dictation).
VERB_GAP_MIN = -0.0035
# Segments of a hypothesis that are no word: silence, the sentence's ends, noise and fillers.
NOT_WORDS = ("<", "[", "+", "(NULL)")
# Words whose readings this decoder is known to hold, kept for the most recently used: one
# forgotten is looked up in the decoder again (a cheap look-up), never added twice.
CHECKED_WORDS = 8192
# pocketsphinx's word insertion penalty (its default 0.65), read when a search is added, so each
# language's searches get their own. The English garbage loop is a word per phone: a lower
# penalty charges it by how long the speech lasts, where its prior alone is fixed per utterance
# and slow or higher voices fell into it. English 0.3 (docs/benchmarks-history-2026.md, "a word
# insertion penalty of 0.3"): commands 79.1% -> 82.7%, real voices 79.8/72.1% -> 83.1/76.7% by
# pitch band, no more non-command speech acted on; at 0.1 "call kebede" was heard as "click
# abebe" (another contact). Amharic stays at 0.65: lower, more of its non-command sentences were
# ACCEPTED. A bench measures another English one through `Recognizer(english_wip=...)`.
WORD_INSERTION_PENALTY = {Locale.EN_US: 0.3, Locale.AM_ET: 0.65}


@dataclass(frozen=True, slots=True)
class Heard:
    """What one decode heard. `confidence`: in [0, 1] (`confidence`), None for a dictated
    (free-word) transcript, which has no score; an empty `text` is no match. `evidence`: what
    the confidence was computed from (the accuracy bench fits the model on it)."""

    text: str
    confidence: float | None
    dictated: bool = False
    evidence: Evidence | None = None
    # How the two ears decided (`hearing.Verdict.how`), for the benches and the log.
    how: str | None = None


class Recognizer:
    """One decoder: one per worker process, which alone uses it."""

    def __init__(
        self,
        checked_words: int = CHECKED_WORDS,
        options: dict[str, str] | None = None,
        *,
        english_wip: float = WORD_INSERTION_PENALTY[Locale.EN_US],
        scorer: Scorer | None = None,
        judge: Judge = hearing.judge,
    ) -> None:
        # The second ear (`hearing`); None when its weights could not be loaded: then nothing is
        # heard (every command is asked again) rather than pocketsphinx trusted alone.
        self.scorer = scorer
        self._judge = judge
        # A bench measures other English penalties; Amharic's stays.
        self._wip = {**WORD_INSERTION_PENALTY, Locale.EN_US: english_wip}
        # Every decode starts its feature state afresh (`_decode`), from the same cepstral mean:
        # each recording is judged on its own. The decoder carries its noise and cepstral-mean
        # estimates from one recording to the next, so an answer depended on what that worker
        # had decoded before (seen: "press wi-fi" heard after a slow command and missed after a
        # fast one). `cmn="batch"` and `remove_noise=False` did not stop it: the model's
        # feat.params overrides them.
        self._decoder = Decoder(
            hmm=str(ACOUSTIC_MODEL),
            dict=str(CMUDICT),
            lm=None,
            bestpath=False,
            cmninit=CMN_START,
            loglevel="FATAL",
            **(options or {}),  # the benches measure one setting at a time
        )
        self._decoder.add_allphone_file(PHONES, str(PHONE_LM))
        # The readings in the decoder's dictionary, most recently used first.
        self.checked: LRUCache[str, list[str]] = LRUCache(checked_words)
        self.added_words = 0  # entries added to the decoder's dictionary, which never shrinks
        self._words_lm = False

    def hear(
        self, pcm: bytes, grammar: Grammar, language: Locale, dictation: bool, refuse_below: float
    ) -> Heard:
        """What the speech says in `grammar`. `dictation`: listen for English dictation;
        `refuse_below`: the confidence gate's threshold, under which Amharic speech is checked
        for a dictation to decline."""
        self._phones: list[tuple[str, int, int, float]] = []
        heard = self._hear_command(pcm, grammar, language)
        heard = self._second_ear(pcm, grammar, language, heard)
        refused = not heard.text or (heard.confidence or 0.0) < refuse_below
        if dictation and grammar.dictation is not None and refused:
            return self._dictation(pcm, grammar.dictation) or heard
        if grammar.unsupported_dictation is not None and refused:
            return self._unsupported_dictation(pcm, grammar.unsupported_dictation) or heard
        return heard

    def command_hypothesis(self, pcm: bytes, grammar: Grammar, language: Locale) -> str:
        """pocketsphinx's command alone ("" for none), before the second ear (for benches)."""
        self._phones = []
        return self._hear_command(pcm, grammar, language).text

    def _second_ear(self, pcm: bytes, grammar: Grammar, language: Locale, heard: Heard) -> Heard:
        """Whisper's judgement of pocketsphinx's hypothesis (`hearing`)."""
        if self.scorer is None:
            return Heard("", 0.0, how="scorer_unavailable")
        if language is Locale.AM_ET and not heard.text:
            return heard  # nothing to verify: Amharic acts only on pocketsphinx's command
        verdict = hearing.listen_again(
            self.scorer, pcm, grammar.slots or EMPTY_SLOTS, language, heard.text, self._judge
        )
        if not verdict.text:  # nothing heard; the first ear's own score kept for the benches
            return Heard("", heard.confidence or 0.0, evidence=heard.evidence, how=verdict.how)
        if language is Locale.AM_ET:  # near, not agreed: no score, so the plan is asked first
            confidence = heard.confidence if verdict.how == "agreed" else None
            return replace(heard, confidence=confidence, how=verdict.how)
        return Heard(verdict.text, hearing.confidence_of(verdict), how=verdict.how)

    def _unsupported_dictation(self, pcm: bytes, jsgf: str) -> Heard | None:
        """Amharic dictation, heard only to be declined: the verb alone, as a dictated text."""
        self._add_search(DICTATION, jsgf, Locale.AM_ET)
        text = self._decode(DICTATION, pcm)
        if text and self._decoder.get_fsg(DICTATION).accept(text):
            return Heard(text.split()[-1], None, dictated=True)
        return None

    def _dictation(self, pcm: bytes, jsgf: str) -> Heard | None:
        """English dictation: the verb then sounds, the verb heard about as well as the phone
        loop hears its frames ("tap" and "type" differ by one vowel)."""
        self._add_search(DICTATION, jsgf, Locale.EN_US)
        text = self._decode(DICTATION, pcm)
        verb = dictation_verb(text) if self._decoder.get_fsg(DICTATION).accept(text) else None
        if verb is None:
            return None
        typed = self._segments()
        phones = self._phones or self._phone_pass(pcm)
        first, last, score = next((s, e, a) for word, s, e, a in typed if word == verb)
        if (score - _span_score(phones, first, last)) / (last - first + 1) < VERB_GAP_MIN:
            return None
        return self.dictate(verb, pcm[(last + 1) * BYTES_PER_FRAME :])

    def _phone_pass(self, pcm: bytes) -> list[tuple[str, int, int, float]]:
        self._decode(PHONES, pcm)
        self._phones = self._segments()
        return self._phones

    def _hear_command(self, pcm: bytes, grammar: Grammar, language: Locale) -> Heard:
        self._add_words(grammar.pronunciations)
        decoder = self._decoder
        self._add_search(COMMAND, grammar.jsgf, language)
        text = self._decode(COMMAND, pcm)
        if not text or not decoder.get_fsg(COMMAND).accept(text):
            return Heard("", 0.0)
        command = self._segments()
        if is_garbage(text):
            return Heard("", 0.0)
        if language is Locale.EN_US:
            return Heard(text, None)  # judged by the second ear, which needs no phone loop
        phones = self._phone_pass(pcm)
        if not phones:
            return Heard("", 0.0)
        words = [(start, end) for word, start, end, _ in command if not word.startswith(NOT_WORDS)]
        if language is Locale.AM_ET and forced_onto_longer_speech(
            [(w, s, e) for w, s, e, _ in command if not w.startswith(NOT_WORDS)],
            [(p, s, e) for p, s, e, _ in phones if not p.startswith(NOT_WORDS)],
            decoder.lookup_word,
        ):
            return Heard("", 0.0)
        evidence = Evidence(
            gap=sum(score for *_, score in command) - sum(score for *_, score in phones),
            frames=decoder.n_frames(),
            speech_frames=sum(end - start + 1 for start, end in words),
        )
        return Heard(text, confidence(evidence, language), evidence=evidence)

    def dictate(self, verb: str, pcm: bytes) -> Heard:
        """The free-word pass over the audio after a dictation verb."""
        if not self._words_lm:
            self._decoder.add_lm_file(WORDS, str(WORD_LM))
            self._words_lm = True
        words = self._decode(WORDS, pcm).split()
        if not words:
            return Heard("", 0.0)
        return Heard(" ".join([verb, *words]), None, dictated=True)

    def _add_search(self, name: str, jsgf: str, language: Locale) -> None:
        self._decoder.config["wip"] = self._wip[language]
        self._decoder.add_jsgf_string(name, jsgf)

    def _decode(self, search: str, pcm: bytes) -> str:
        """The text one search hears in the whole recording ("" for nothing)."""
        decoder = self._decoder
        decoder.activate_search(search)
        decoder.reinit_feat()  # a fresh noise and cepstral-mean estimate, next to free
        decoder.start_utt()
        decoder.process_raw(pcm, full_utt=True)
        decoder.end_utt()
        hypothesis = decoder.hyp()
        return "" if hypothesis is None else hypothesis.hypstr.strip()

    def _segments(self) -> list[tuple[str, int, int, float]]:
        """The last decode's path: (word, first frame, last frame, log acoustic score). The
        binding gives each score as a probability; its log is the decoder's own score."""
        return [
            (s.word, s.start_frame, s.end_frame, math.log(max(s.ascore, _SMALLEST)))
            for s in self._decoder.seg() or ()
            if s.start_frame >= 0
        ]

    def _add_words(self, pronunciations: dict[str, list[str]]) -> None:
        """Readings this decoder's dictionary lacks (it starts with cmudict's): a word's
        alternates are pocketsphinx's `word(2)`, `word(3)`, ... The dictionary is rebuilt once,
        after the last word."""
        decoder = self._decoder
        entries: list[tuple[str, str]] = []
        for word, readings in pronunciations.items():
            if self.checked.get(word) == readings:
                continue
            self.checked[word] = readings
            known: list[str] = []
            while (phones := decoder.lookup_word(_variant(word, len(known) + 1))) is not None:
                known.append(phones)
            for phones in readings:
                if phones not in known:
                    known.append(phones)
                    entries.append((_variant(word, len(known)), phones))
        for index, (name, phones) in enumerate(entries):
            decoder.add_word(name, phones, update=index == len(entries) - 1)
        self.added_words += len(entries)

    def knows(self, word: str) -> bool:
        """Whether the decoder's dictionary holds `word` (cmudict's own words included)."""
        return self._decoder.lookup_word(word) is not None


_SMALLEST = 1e-300  # a score so low it underflowed


def _span_score(segments: list[tuple[str, int, int, float]], start: int, end: int) -> float:
    """The score of frames start..end on a path, a segment's score shared evenly over its
    frames where the span cuts it."""
    total = 0.0
    for _, first, last, score in segments:
        overlap = min(last, end) - max(first, start) + 1
        if overlap > 0:
            total += score * overlap / (last - first + 1)
    return total


def _variant(word: str, number: int) -> str:
    return word if number == 1 else f"{word}({number})"
