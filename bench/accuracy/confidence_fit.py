"""The confidence model's fit (`lisan.providers.local.confidence`), per language, on what the
decodes measured: commands against out-of-grammar sentences, a logistic regression placed so
that the product's threshold refuses a set share of the commands, and its figures on the
sentences it was not fitted on (two folds, split by sentence). `bench.offline --calibrate`."""

from __future__ import annotations

import zlib

import numpy as np

from bench.accuracy.outcomes import Outcome, Report
from bench.kit.figures import pct

# Where the gate sits: the share of the commands the grammar heard that it may refuse. English
# already loses about a tenth of its commands to the garbage loop (`grammar.GARBAGE_WEIGHT`).
GATE_SHARE = {"en-US": 0.01, "am-ET": 0.01}


def calibrate(report: Report) -> dict[str, object]:
    """Fit the confidence model per language; figures on held-out sentences (two folds)."""
    result: dict[str, object] = {}
    for language in ("en-US", "am-ET"):
        chosen = [o for o in report.outcomes if o.language == language]
        commands = [o for o in chosen if o.kind == "command"]
        oog = [o for o in chosen if o.kind == "out_of_grammar"]
        if not any(o.features for o in commands):  # not run, or judged by the second ear
            continue
        held_out: dict[int, float] = {}
        for fold in (0, 1):
            train = [o for o in commands + oog if o.features and _fold(o.said) != fold]
            weights = _fit(train, GATE_SHARE[language])
            for o in commands + oog:
                if o.features and _fold(o.said) == fold:
                    held_out[id(o)] = _score(weights, o.features)
        kept = {id(o) for o in commands + oog if held_out.get(id(o), -1.0) >= 0}
        weights = _fit([o for o in commands + oog if o.features], GATE_SHARE[language])
        words = [o for o in chosen if o.kind == "real_word" and o.reason != "no_speech"]
        real_kept = sum(1 for o in words if o.features and _score(weights, o.features) >= 0)
        result[language] = {
            "held_out": {
                "in_grammar_refused": pct(sum(id(o) not in kept for o in commands), len(commands)),
                "correct_plans_kept": pct(
                    sum(o.correct and id(o) in kept for o in commands), len(commands)
                ),
                "out_of_grammar_refused": pct(sum(id(o) not in kept for o in oog), len(oog)),
                "real_words_refused": pct(len(words) - real_kept, len(words)),
            },
            "weights": [round(w, 3) for w in weights],
        }
    return result


def _fold(sentence: str) -> int:
    return zlib.crc32(sentence.encode()) % 2


def _score(weights: list[float], features: tuple[float, ...]) -> float:
    *slopes, intercept = weights
    return intercept + sum(w * x for w, x in zip(slopes, features, strict=True))


def _fit(outcomes: list[Outcome], gate_share: float) -> list[float]:
    """Logistic regression (Newton's method, a little ridge), then the intercept moved so that
    a score of 0 (confidence 0.5) refuses `gate_share` of the commands."""
    x = np.array([[*o.features, 1.0] for o in outcomes if o.features])
    y = np.array([o.kind == "command" for o in outcomes if o.features], dtype=float)
    beta = np.zeros(x.shape[1])
    ridge = 1e-3 * np.eye(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ beta))
        hessian = (x * (p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(hessian, x.T @ (y - p) - ridge @ beta)
        beta += step
        if np.abs(step).max() < 1e-9:
            break
    command_scores = np.sort(x[y == 1] @ beta)
    beta[-1] -= command_scores[int(gate_share * len(command_scores))]
    return [float(b) for b in beta]
