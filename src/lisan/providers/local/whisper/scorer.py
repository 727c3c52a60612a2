"""Which of the commands a screen allows was said, by Whisper: each candidate text is scored by
teacher forcing (the log-probability Whisper gives its tokens, then the end of text), never
decoded freely, so the answer is always one of the commands the service can act on, with a
score that says how well it fits.

- The encoder reads the audio plus `MARGIN_S` of silence, not Whisper's 30 s window.
- Candidates are scored over their prefix trie: a prefix shared by several ("tap se...") is one
  decoder position for all of them, so 50 candidates cost a few hundred positions, batched by
  depth.
- Ranked by mean log-probability per token (the sum favours short candidates), minus
  `PRIOR_WEIGHT` times the same candidate's mean on silence: what Whisper would say of no
  speech at all (an English model prefers "press send" to "press Kebede" before it hears
  anything). 0.6, not the study's 0.3: English commands 93.3% -> 95.4% (the female voice most),
  with the gate's thresholds fitted again (docs/offline-provider.md, "Figures").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from cachetools import LRUCache
from tokenizers import Tokenizer

from lisan.providers.local.whisper.features import HOP, SAMPLE_RATE, log_mel
from lisan.providers.local.whisper.model import State, Whisper
from lisan.providers.local.whisper.weights import Weights, WeightsUnavailable

MARGIN_S = 1.0
MAX_FRAMES = 3000  # Whisper's 30 s
PRIOR_WEIGHT = 0.6
PRIOR_S = 1.0
PRIOR_CACHE = 4096  # candidate texts whose score on silence is remembered
MAX_TOKENS = 48  # a candidate of more tokens is never the command said


@dataclass(frozen=True, slots=True)
class Scored:
    """Each candidate's score (mean log-probability per token, less the silence prior), in the
    order given; `best` is the index of the highest."""

    scores: tuple[float, ...]

    @property
    def best(self) -> int:
        return max(range(len(self.scores)), key=self.scores.__getitem__)

    def margin(self, index: int) -> float:
        """How far `index` stands below the best (0 for the best itself)."""
        return self.scores[self.best] - self.scores[index]


class Scorer:
    """One per decoder process: the weights, large and slow to load, load once."""

    def __init__(
        self, weights: Weights, *, language: str | None = None, window_s: float | None = None
    ) -> None:
        """`language`: the transcript's, for a multilingual model (tiny.en takes none);
        `window_s`: the encoder's window, the audio plus `MARGIN_S` by default (30 is
        Whisper's own)."""
        self._model = Whisper(weights)
        self._tokenizer = Tokenizer.from_str(weights.tokenizer_json)
        self._end = self._token("<|endoftext|>")
        self._window_s = window_s
        told = [] if language is None else [f"<|{language}|>", "<|transcribe|>"]
        names = ["<|startoftranscript|>", *told, "<|notimestamps|>"]
        self._prefix = [self._token(name) for name in names]
        self._prior: LRUCache[str, float] = LRUCache(PRIOR_CACHE)
        self._silence: Listening | None = None

    def _token(self, name: str) -> int:
        token = self._tokenizer.token_to_id(name)
        if token is None:
            raise WeightsUnavailable(f"tokenizer.json: no {name}")
        return token

    def listen(self, samples: np.ndarray) -> Listening:
        """One utterance read by the encoder, and the decoder past its prefix: what every
        question about it starts from. `samples`: 16 kHz float audio in [-1, 1]."""
        seconds = self._window_s or len(samples) / SAMPLE_RATE + MARGIN_S
        frames = min(MAX_FRAMES, 2 * math.ceil(seconds * SAMPLE_RATE / HOP / 2))
        model = self._model
        cross = model.cross(model.encode(log_mel(samples, frames)))
        state: State | None = None
        log_probs = np.empty(0)
        for position, token in enumerate(self._prefix):
            log_probs, state = model.step(np.array([token]), position, state, cross)
        assert state is not None
        return Listening(cross, state, log_probs[0])

    def first_word(self, listening: Listening, words: Sequence[str]) -> str:
        """Which of `words` Whisper would begin the transcript with (by its first token): the
        verb a command was said with ("press", "click", "tap"), at no extra cost."""
        first = [self._tokenizer.encode(" " + word, add_special_tokens=False).ids[0]
                 for word in words]  # fmt: skip
        return words[int(np.argmax(listening.first[first]))]

    def score(self, listening: Listening, candidates: Sequence[str]) -> Scored:
        """Each candidate's score on the utterance (see the module's docstring)."""
        raw = self._mean_scores(listening, candidates)
        missing = [text for text in dict.fromkeys(candidates) if text not in self._prior]
        if missing:
            if self._silence is None:  # heard once: every new candidate is scored against it
                self._silence = self.listen(np.zeros(int(PRIOR_S * SAMPLE_RATE), np.float32))
            priors = self._mean_scores(self._silence, missing)
            for text, prior in zip(missing, priors, strict=True):
                self._prior[text] = prior
        return Scored(
            tuple(
                score - PRIOR_WEIGHT * self._prior[text] if math.isfinite(score) else -math.inf
                for text, score in zip(candidates, raw, strict=True)
            )
        )

    def _mean_scores(self, listening: Listening, candidates: Sequence[str]) -> list[float]:
        model = self._model
        tokens = [self._tokenizer.encode(" " + text, add_special_tokens=False).ids
                  for text in candidates]  # fmt: skip
        # A candidate longer than any command is said (screen text can be) is not scored: it
        # would cost positions, and past the decoder's 448 it has none.
        sequences = [[*ids, self._end] if len(ids) < MAX_TOKENS else [self._end] for ids in tokens]
        state = listening.state
        totals = np.zeros(len(sequences))
        # Depth by depth over the trie: each distinct prefix once; `level` maps a prefix to its
        # row in the state and in the log-probabilities of the level before.
        level: dict[tuple[int, ...], int] = {(): 0}
        level_log_probs = listening.first[None, :]
        for depth in range(max(len(s) for s in sequences)):
            for index, sequence in enumerate(sequences):
                if depth < len(sequence):
                    totals[index] += level_log_probs[
                        level[tuple(sequence[:depth])], sequence[depth]
                    ]
            grown = sorted({tuple(s[: depth + 1]) for s in sequences if len(s) > depth + 1})
            if not grown:
                break
            parents = np.array([level[prefix[:-1]] for prefix in grown])
            level_log_probs, state = model.step(
                np.array([prefix[-1] for prefix in grown]),
                len(self._prefix) + depth,
                state.rows(parents),
                listening.cross,
            )
            level = {prefix: row for row, prefix in enumerate(grown)}
        return [
            total / len(sequence) if len(ids) < MAX_TOKENS else -math.inf
            for total, sequence, ids in zip(totals, sequences, tokens, strict=True)
        ]


@dataclass(frozen=True, slots=True)
class Listening:
    """An utterance as the decoder sees it: the encoding's cross-attention keys and values, the
    decoder's state after the prefix, and its log-probabilities of the first token."""

    cross: list[tuple[np.ndarray, np.ndarray]]
    state: State
    first: np.ndarray
