"""A short command forced onto longer speech is no command (Amharic).

The English acoustic model fits Amharic loosely, so a closed grammar finds some command in any
Amharic speech, and its score against the phone loop (`confidence`) cannot tell them apart when
the command is short and the speech long. How the command's words sit in the time the speech
was voiced can: said, a command's words cover the voiced time and last a few frames per phone;
forced onto a sentence, they leave much of the voiced time to silence, or stretch to cover it.

Fitted on the accuracy bench's Amharic commands against its out-of-grammar sentences (espeak-ng,
`python -m bench.offline --language am-ET`), each bound with a margin past the worst command
heard correctly (coverage 0.73; 13.3 frames a phone at 130 words a minute); reported on
held-out sentences and on real read speech (docs/benchmarks-history-2026.md, "Results,
2026-11-28: offline Amharic, the coverage rule").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

MIN_COVERAGE = 0.7  # the command's word frames over the frames the phone loop heard voiced
MAX_FRAMES_PER_PHONE = 16.0  # 10 ms frames; about 20% slower than the slowest command measured
SILENCE = "SIL"


def forced_onto_longer_speech(
    words: Sequence[tuple[str, int, int]],
    phones: Sequence[tuple[str, int, int]],
    readings_of: Callable[[str], str | None],
) -> bool:
    """Whether the command's `words` (word, first frame, last frame) cover too little of the
    voiced frames of the phone loop's path `phones`, or stretch too long over their phones
    (`readings_of`: a decoder word's phones, as the decoder's dictionary gives them)."""
    said = sum(last - first + 1 for _, first, last in words)
    voiced = sum(last - first + 1 for phone, first, last in phones if phone != SILENCE)
    phone_count = sum(len((readings_of(word) or "").split()) for word, _, _ in words)
    return said < MIN_COVERAGE * voiced or said > MAX_FRAMES_PER_PHONE * max(phone_count, 1)
