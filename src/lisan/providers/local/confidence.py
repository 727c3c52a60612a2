"""How sure the offline transcriber is that the speech was a command of its grammar.

A closed grammar forces any speech onto some command, and the decoder's own posterior is about
0.1 for right and wrong alike, so the score comes from comparing the grammar's path with a free
phone loop over the same audio (the best any English-like sound sequence scores):

- `per_frame`: the gap in log acoustic score, per frame of a recording of at least 2 s (a
  shorter one counts as 2 s, the bench's length, so a short clip is not judged more harshly);
- `per_speech_frame`: the same gap per frame that the grammar's words cover (not silence or
  filler).

How long the words last separated the bench's sentences a little better still, but it refused
short commands said fast ("ተመለስ" at espeak-ng's default rate), so it is left out.

A logistic model over the two, fitted per language on the accuracy bench (commands against
out-of-grammar sentences, `python -m bench.offline --calibrate`), maps them to [0, 1], with its
intercept placed so that the default LISAN_CONFIDENCE_THRESHOLD (0.5) is the bench's operating
point.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from lisan.core.locale import Locale

REFERENCE_FRAMES = 200  # 2 s at the decoder's 100 frames a second


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a decode measured. `gap`: log acoustic score of the grammar's path minus the phone
    loop's, over the whole recording (natural log)."""

    gap: float
    frames: int
    speech_frames: int

    def features(self) -> tuple[float, float]:
        per_frame = 1000 * self.gap / max(self.frames, REFERENCE_FRAMES)
        per_speech_frame = 1000 * self.gap / max(self.speech_frames, 1)
        return per_frame, per_speech_frame


# (weights of per_frame and per_speech_frame; intercept), from
# `python -m bench.offline --calibrate` (see its report for the fit and the held-out figures).
WEIGHTS: dict[Locale, tuple[float, float, float]] = {
    Locale.EN_US: (1.284, 0.679, 6.543),
    Locale.AM_ET: (-1.688, 1.271, 4.016),
}


def confidence(evidence: Evidence, language: Locale) -> float:
    *weights, intercept = WEIGHTS[language]
    z = intercept + sum(w * x for w, x in zip(weights, evidence.features(), strict=True))
    return 1.0 / (1.0 + math.exp(-max(min(z, 700.0), -700.0)))
