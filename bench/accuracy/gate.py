"""The second ear's thresholds, fitted held out: `python -m bench.offline --calibrate` (and
`python -m bench.offline_gate FILE` on a run's outcomes) replays the gate
(`lisan.providers.local.hearing.judge`) on what each decode gave it (pocketsphinx's hypothesis,
Whisper's scores of the candidates) at every threshold of a grid, and answers each replay as
the route would (`bench.accuracy.route.planned`).

Two folds, split by sentence AND by voice: a threshold is chosen on the sentences of one half
said by one voice family, and reported on the other half's sentences said by the other family,
so no sentence and no voice of the report was seen by the fit. The choice maximises correct
plans minus `WRONG_COST` times every plan that acts wrongly (a wrong command, or a non-command
ACCEPTED), minus one for each non-command that is only asked about.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from bench.kit.figures import pct
from lisan.core.locale import Locale
from lisan.providers.local import hearing
from lisan.providers.local.hearing import Candidate
from lisan.providers.local.planner import intent_of
from lisan.providers.local.whisper.scorer import Scored

WRONG_COST = 4.0
GRIDS: dict[str, list[dict[str, float]]] = {
    "en-US": [
        {"confident": float(confident), "floor": float(floor), "fixed_floor": float(fixed)}
        for confident in np.arange(-2.0, 0.51, 0.5)
        for floor in np.arange(-4.0, -1.99, 0.25)
        for fixed in np.arange(-3.5, -1.49, 0.25)
    ],
    "am-ET": [{"reach": float(x)} for x in np.arange(0.0, 2.01, 0.1)],
}


def calibrate_gate(
    outcomes: Iterable[Any],
    planned: Callable[[str, float | None, Locale, str, float], tuple[str, str | None, list[Any]]],
    threshold: float,
) -> dict[str, object]:
    """Per language: the threshold each fold chose, and the held-out figures at it."""
    result: dict[str, object] = {}
    for language, grid in GRIDS.items():
        locale = Locale(language)
        chosen = [
            o for o in outcomes
            if o.language == language
            and o.kind in {"command", "out_of_grammar", "held_out", "real_word", "real_amharic"}
        ]  # fmt: skip
        if not chosen:
            continue
        folds = []
        for fold in (0, 1):
            fit = [o for o in chosen if _half(o) == fold and _family(o) == fold]
            held = [o for o in chosen if _half(o) != fold and _family(o) != fold]
            scores = [_score(_figures(fit, locale, knobs, planned, threshold)) for knobs in grid]
            best = grid[int(np.argmax(scores))]
            figures = _figures(held, locale, best, planned, threshold)
            folds.append({"chosen": {k: round(v, 2) for k, v in best.items()}, "held_out": figures})
        result[language] = folds
    return result


def _score(figures: dict[str, object]) -> float:
    score = figures["score"]
    assert isinstance(score, float)
    return score


def _half(outcome: Any) -> int:
    return zlib.crc32(outcome.said.encode()) % 2


def _family(outcome: Any) -> int:
    """The voice family: espeak-ng's male voice (0) or its female voice (1); Amharic's two
    rates (0, 1); the people of ../shared/speech by their speaker id, half and half."""
    voice: str = outcome.voice
    if voice.startswith("human-"):
        return zlib.crc32(voice.split("@")[0].encode()) % 2
    return 1 if ("+f" in voice or voice.endswith("@160")) else 0


def _figures(
    outcomes: list[Any],
    locale: Locale,
    knobs: dict[str, float],
    planned: Callable[[str, float | None, Locale, str, float], tuple[str, str | None, list[Any]]],
    threshold: float,
) -> dict[str, object]:
    tallies: list[tuple[int, ...]] = [(0, 0, 0, 0, 0, 0, 0)]
    for o in outcomes:
        replay = o.replay
        if replay is None:  # refused before the second ear (no speech, the first ear's checks)
            steps = list(o.expected or ()) if o.correct else []
            tallies.append(_tally(o, o.status, steps))
            continue
        heard = [
            Candidate(text, text, intent, decoded=decoded)
            for text, decoded in zip(replay.texts, replay.decoded_flags, strict=True)
            if (intent := intent_of(text, locale)) is not None
        ]
        verdict = hearing.judge(
            replay.decoded, Scored(tuple(replay.scores)), heard, locale, **knobs
        )
        confidence: float | None = hearing.confidence_of(verdict) if verdict.text else 0.0
        if locale is Locale.AM_ET and verdict.text:
            confidence = o.confidence if verdict.how == "agreed" else None
        status, _, steps = planned(verdict.text, confidence, locale, o.screen, threshold)
        tallies.append(_tally(o, status, steps))
    right, wrong, refused, commands, others, others_planned, others_accepted = (
        sum(column) for column in zip(*tallies, strict=True)
    )
    return {
        "score": float(
            right - WRONG_COST * (wrong + others_accepted) - (others_planned - others_accepted)
        ),
        "commands_correct": pct(right, commands),
        "commands_wrong": pct(wrong, commands),
        "commands_refused": pct(refused, commands),
        "non_commands_refused": pct(others - others_planned, others),
        "non_commands_accepted": others_accepted,
    }


def _tally(outcome: Any, status: str, steps: list[Any]) -> tuple[int, ...]:
    """(right, wrong, refused, commands, others, others planned, others accepted) of one."""
    acted = status in {"ACCEPTED", "CONFIRMATION_REQUIRED"}
    if outcome.kind == "command":
        good = acted and tuple(tuple(step) for step in steps) == outcome.expected
        return int(good), int(acted and not good), int(status == "REPROMPT"), 1, 0, 0, 0
    return 0, 0, 0, 0, 1, int(acted), int(status == "ACCEPTED")
