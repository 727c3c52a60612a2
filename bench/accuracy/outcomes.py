"""What an accuracy run records: the route's answer to one recording and its CPU, each
recording's outcome (what was said, by which voice, what came back, and whether it was right),
and the report that counts them."""

from __future__ import annotations

from dataclasses import dataclass, field

from bench.accuracy.cases import Step
from bench.accuracy.decoding import Replay
from lisan.providers.local.confidence import Evidence


@dataclass(frozen=True, slots=True)
class Answer:
    status: str
    reason: str | None
    transcript: str
    steps: list[tuple[str, str | None]]
    cpu_ms: float
    confidence: float | None
    evidence: Evidence | None
    replay: Replay | None = None


@dataclass
class Outcome:
    kind: str  # command, out_of_grammar, silence
    language: str
    said: str
    voice: str
    status: str  # ACCEPTED, CONFIRMATION_REQUIRED, REPROMPT, REJECTED
    reason: str | None
    transcript: str
    correct: bool
    cpu_ms: float
    confidence: float | None = None
    features: tuple[float, float] | None = None
    loud: bool = True  # what the energy stage of the speech gate alone would say
    replay: Replay | None = None
    screen: str = ""
    expected: tuple[Step, ...] | None = None  # a command's right steps


@dataclass
class Report:
    outcomes: list[Outcome] = field(default_factory=list)

    def share(self, kind: str, language: str, test: str) -> tuple[int, int]:
        chosen = [o for o in self.outcomes if o.kind == kind and o.language == language]
        hits = sum(1 for o in chosen if _test(o, test))
        return hits, len(chosen)


def _test(outcome: Outcome, test: str) -> bool:
    if test == "correct":
        return outcome.correct
    if test == "exact":
        return outcome.transcript == _words(outcome.said)
    if test == "refused":
        return outcome.status == "REPROMPT"
    if test == "no_speech":
        return outcome.reason == "no_speech"
    if test == "planned":
        return outcome.status in {"ACCEPTED", "CONFIRMATION_REQUIRED"}
    raise ValueError(test)


def _words(text: str) -> str:
    return " ".join(text.lower().replace("-", " ").split())
