"""pocketsphinx decoding, off the event loop: one decoder per worker process, reused, never
shared.

A decoder costs about 60 MB and 0.15 s to create, is not thread-safe, and holds the GIL while
it decodes (a decode in a thread stalled the event loop for its whole 55 ms, measured): each
worker process of `DecoderPool` makes its own on first use and keeps it. Requests wait for a
worker in a bounded queue; a full queue is refused at once (`PoolFull`, a 503 with
`Retry-After`), so a burst of slow decodes never stalls the event loop or piles up without
bound.

One decode:
1. the request's closed grammar (`grammar`), with `bestpath` off; a hypothesis the grammar does
   not accept (pocketsphinx returns its best partial path when no path reaches the end) is no
   match;
2. the same audio through a free phone loop (`allphone`): the best any English-like sound
   sequence can score. The grammar's acoustic score against it (`confidence.Evidence`)
   separates in-grammar speech from speech the grammar was forced onto (the decoder's own
   posterior does not: it is about 0.1 for right and wrong alike);
3. in English, when the grammar heard a dictation verb ("type", "send", "write") followed by
   sounds no command explains, a free-word pass with pocketsphinx's English language model
   over the audio after the verb. It is weak, so it carries no confidence score, and the
   pipeline reads it back before anything runs.
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass

from pocketsphinx import Decoder, set_loglevel

from lisan.providers.base import Expected
from lisan.providers.local.confidence import Evidence, confidence
from lisan.providers.local.grammar import Grammar, build, dictation_verb, is_garbage
from lisan.providers.local.phones import CMUDICT, MODEL_DIR, Pronouncer
from lisan.users.models import Locale

set_loglevel("FATAL")  # pocketsphinx reports a grammar miss on stderr; we read its result

ACOUSTIC_MODEL = MODEL_DIR / "en-us"
PHONE_LM = MODEL_DIR / "en-us-phone.lm.bin"
WORD_LM = MODEL_DIR / "en-us.lm.bin"
COMMAND, PHONES, WORDS, DICTATION = "command", "phones", "words", "dictation"
BYTES_PER_FRAME = 320  # 10 ms of 16 kHz 16-bit audio
# Where every decode's cepstral-mean estimate starts: the mean the decoder settles on over the
# 275 real voices of ../shared/speech (people, not espeak-ng), so no recording inherits
# another's.
CMN_START = "43.21,4.39,-6.05,0.03,-6.54,-2.08,-2.05,-1.64,0.49,-0.80,-1.29,-0.04,-0.45"
# The dictation verb's log score per frame against the phone loop's over the same frames, below
# which it is no dictation (bench: kept 30 of 40 dictations, refused 12 of 16 commands and 15 of
# 24 sentences that the grammar had taken for dictation).
VERB_GAP_MIN = -0.0035
# Segments of a hypothesis that are no word: silence, the sentence's ends, noise and fillers.
NOT_WORDS = ("<", "[", "+", "(NULL)")


class PoolFull(Exception):
    """Every decoder is busy and the queue is full."""


@dataclass(frozen=True, slots=True)
class Heard:
    """What one decode heard. `confidence`: in [0, 1] (`confidence`), None for a dictated
    (free-word) transcript, which has no score; an empty `text` is no match. `evidence`: what
    the confidence was computed from (the accuracy bench fits the model on it)."""

    text: str
    confidence: float | None
    dictated: bool = False
    evidence: Evidence | None = None


class Recognizer:
    """One decoder: one per worker process, which alone uses it."""

    def __init__(self) -> None:
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
        )
        self._decoder.add_allphone_file(PHONES, str(PHONE_LM))
        self._checked: dict[str, list[str]] = {}  # words whose readings are in the dictionary
        self._words_lm = False

    def hear(self, pcm: bytes, grammar: Grammar, language: Locale, request: Request) -> Heard:
        heard = self._hear_command(pcm, grammar, language, dictation=request.dictation)
        refused = not heard.text or (heard.confidence or 0.0) < request.refuse_below
        if grammar.unsupported_dictation is not None and refused:
            return self._unsupported_dictation(pcm, grammar.unsupported_dictation) or heard
        return heard

    def _unsupported_dictation(self, pcm: bytes, jsgf: str) -> Heard | None:
        """Amharic dictation, heard only to be declined: the verb alone, as a dictated text."""
        self._decoder.add_jsgf_string(DICTATION, jsgf)
        text = self._decode(DICTATION, pcm)
        if text and self._decoder.get_fsg(DICTATION).accept(text):
            return Heard(text.split()[-1], None, dictated=True)
        return None

    def _hear_command(
        self, pcm: bytes, grammar: Grammar, language: Locale, *, dictation: bool
    ) -> Heard:
        self._add_words(grammar.pronunciations)
        decoder = self._decoder
        decoder.add_jsgf_string(COMMAND, grammar.jsgf)
        text = self._decode(COMMAND, pcm)
        if not text or not decoder.get_fsg(COMMAND).accept(text):
            return Heard("", 0.0)
        command = self._segments()
        verb = dictation_verb(text) if dictation else None
        if is_garbage(text) and verb is None:
            return Heard("", 0.0)
        self._decode(PHONES, pcm)
        phones = self._segments()
        if not phones:
            return Heard("", 0.0)
        if verb is not None:
            first, last, score = next((s, e, a) for word, s, e, a in command if word == verb)
            # "tap" and "type" differ by one vowel: the verb must be heard about as well as
            # the phone loop hears those frames.
            if (score - _span_score(phones, first, last)) / (last - first + 1) < VERB_GAP_MIN:
                return Heard("", 0.0)
            return self.dictate(verb, pcm[(last + 1) * BYTES_PER_FRAME :])
        words = [(start, end) for word, start, end, _ in command if not word.startswith(NOT_WORDS)]
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

    def _decode(self, search: str, pcm: bytes) -> str:
        """The text one search hears in the whole recording ("" for nothing)."""
        decoder = self._decoder
        decoder.activate_search(search)
        decoder.reinit_feat()  # a fresh noise and cepstral-mean estimate: 3 us
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
            if self._checked.get(word) == readings:
                continue
            self._checked[word] = readings
            known: list[str] = []
            while (phones := decoder.lookup_word(_variant(word, len(known) + 1))) is not None:
                known.append(phones)
            for phones in readings:
                if phones not in known:
                    known.append(phones)
                    entries.append((_variant(word, len(known)), phones))
        for index, (name, phones) in enumerate(entries):
            decoder.add_word(name, phones, update=index == len(entries) - 1)


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


class DecoderPool:
    """`workers` processes, each with its own Recognizer (pocketsphinx holds the GIL while it
    decodes, so a thread would stall the event loop for the whole decode); at most `queue`
    requests wait. The grammar is built in the worker too: pronouncing a new word runs
    espeak-ng, and its cache lives there."""

    def __init__(self, workers: int, queue: int) -> None:
        self._workers = workers
        self._capacity = workers + queue
        self._in_flight = 0
        self._executor = self._new_executor()

    def _new_executor(self) -> ProcessPoolExecutor:
        # spawn, not fork: the server process has threads and an event loop a fork would copy.
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=self._workers, mp_context=context)

    async def hear(self, pcm: bytes, request: Request) -> Heard:
        """Decode in a worker; PoolFull at once when `workers + queue` decodes are in flight.
        A cancelled wait leaves its decode to finish in the worker, still counted."""
        if self._in_flight >= self._capacity:
            raise PoolFull(f"{self._capacity} decodes running or waiting")
        self._in_flight += 1
        loop = asyncio.get_running_loop()
        try:
            future = loop.run_in_executor(self._executor, hear_in_worker, pcm, request)
        except BrokenProcessPool:
            self._in_flight -= 1
            self._executor = self._new_executor()
            raise
        future.add_done_callback(self._done)
        try:
            return await asyncio.shield(future)
        except BrokenProcessPool:  # a worker died (killed, out of memory): start afresh
            self._executor = self._new_executor()
            raise

    def _done(self, _: asyncio.Future[Heard]) -> None:
        self._in_flight -= 1

    def close(self) -> None:
        self._executor.shutdown(wait=False, cancel_futures=True)


@dataclass(frozen=True, slots=True)
class Request:
    """What a worker needs besides the audio (sent to it pickled)."""

    expected: Expected
    language: Locale
    dictation: bool
    refuse_below: float  # the confidence gate's threshold (LISAN_CONFIDENCE_THRESHOLD)


_worker: tuple[Recognizer, Pronouncer] | None = None  # the worker process's own


def hear_in_worker(pcm: bytes, request: Request) -> Heard:
    """One decode, in a worker process (or, for the accuracy bench, in its own)."""
    global _worker
    if _worker is None:
        _worker = (Recognizer(), Pronouncer())
    recognizer, pronouncer = _worker
    grammar = build(request.expected, request.language, pronouncer)
    return recognizer.hear(pcm, grammar, request.language, request)
