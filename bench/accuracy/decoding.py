"""A decode as a decoder process runs it, run in the bench's own process so that its CPU is the
bench's to measure, with the decoder settings a measurement may move (`--english-wip`,
`--garbage-weight`, `--option NAME=VALUE`), and what the second ear was given, kept for the
gate's replay."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass, field

from threadpoolctl import threadpool_limits

from lisan.core.locale import Locale
from lisan.providers.local import hearing
from lisan.providers.local.grammar import GARBAGE_WEIGHT, build
from lisan.providers.local.hearing import Candidate, Verdict
from lisan.providers.local.phones import Pronouncer
from lisan.providers.local.pool import DECODER_WORDS, Request
from lisan.providers.local.recognizer import WORD_INSERTION_PENALTY, Heard, Recognizer
from lisan.providers.local.whisper import weights
from lisan.providers.local.whisper.scorer import Scored, Scorer


@dataclass
class Decoding:
    """What a decoder process runs (`pool.hear_in_worker`), run in this process, so that its
    CPU is this process's to measure, with the two settings a measurement may move: the English
    word insertion penalty (`--english-wip`) and the garbage loop's prior (`--garbage-weight`)."""

    english_wip: float = WORD_INSERTION_PENALTY[Locale.EN_US]
    garbage_weight: str = GARBAGE_WEIGHT
    pronouncer: Pronouncer = field(default_factory=Pronouncer)
    recognizer: Recognizer | None = None
    scorer: Scorer | None = None
    options: dict[str, str] = field(default_factory=dict)  # pocketsphinx settings to measure
    # What the second ear was last given: pocketsphinx's hypothesis, the candidates and
    # Whisper's scores (`--calibrate` replays the gate on them at other thresholds).
    last: Replay | None = None

    def hear(self, pcm: bytes, request: Request) -> Heard:
        self.last = None
        if self.scorer is None:
            threadpool_limits(limits=1)  # as a decoder process runs
            self.scorer = Scorer(weights.load())
        if self.recognizer is None or self.recognizer.added_words >= DECODER_WORDS:
            self.recognizer = Recognizer(
                options=self.options,
                english_wip=self.english_wip,
                scorer=self.scorer,
                judge=self._judge,
            )
        grammar = build(
            request.expected, request.language, self.pronouncer, garbage_weight=self.garbage_weight
        )
        return self.recognizer.hear(
            pcm, grammar, request.language, request.dictation, request.refuse_below
        )

    def _judge(
        self, decoded: str, scored: Scored, heard: Sequence[Candidate], language: Locale
    ) -> Verdict:
        self.last = Replay(
            decoded, list(scored.scores), [c.text for c in heard], [c.decoded for c in heard]
        )
        return hearing.judge(decoded, scored, heard, language)


@dataclass(frozen=True, slots=True)
class Replay:
    decoded: str
    scores: list[float]
    texts: list[str]
    decoded_flags: list[bool]


def add_decoder_settings(parser: argparse.ArgumentParser) -> None:
    """--english-wip and --garbage-weight: the two decoder settings the accuracy benches move
    (`Recognizer(english_wip=...)`, `grammar.build(garbage_weight=...)`), the product's by
    default."""
    from lisan.core.locale import Locale
    from lisan.providers.local.grammar import GARBAGE_WEIGHT
    from lisan.providers.local.recognizer import WORD_INSERTION_PENALTY

    parser.add_argument(
        "--english-wip",
        type=float,
        default=WORD_INSERTION_PENALTY[Locale.EN_US],
        help="the English word insertion penalty to measure (default: the product's)",
    )
    parser.add_argument(
        "--garbage-weight",
        default=GARBAGE_WEIGHT,
        help="the garbage loop's prior to measure, \"off\" for none (default: the product's)",
    )
