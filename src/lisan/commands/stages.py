"""The stages of a command, each by one name, and the one way a stage is timed (`timed`, or
`Lap.stop` for a stage that began before its code did: the whole command). A stage's name is its
key in the command event's `server_timings` (`Progress.lap`) and its value of the `stage` label
of `lisan_command_stage_duration_seconds`. The metric's label values are declared here, at
import, so `core.metrics` names no stage of its own.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum

from lisan.core import metrics


class Stage(StrEnum):
    SPEECH_PRESENCE = "speech_presence"  # step 2, `gate`: a metric only, no timing key
    TRANSCRIPTION = "transcription"  # step 4, `hear`
    RULES_PLANNING = "rules_planning"  # step 5, `rules_first.plan_by_rules`: the rules first
    PLANNING = "planning"  # step 5, `plan`: the planner (a model, or the offline rules)
    VALIDATION = "validation"  # step 6, `validate`
    TOTAL = "total"  # the whole command: a timing key only, no metric stage


class Planner(StrEnum):
    """Which planner planned a command: the `planner` label of `lisan_commands_total`."""

    NONE = "none"  # decided before any plan (a refusal, a doubt, a failure before planning)
    RULES = "rules"  # the rules read the transcript (local first, or the offline provider)
    MODEL = "model"  # a remote planner: a language model


metrics.COMMAND_PLANNERS.declare(Planner)

# The stages the metric times (the `stage` label's values).
METRIC_STAGES = frozenset(stage for stage in Stage if stage is not Stage.TOTAL)

metrics.STAGES.declare(METRIC_STAGES)


@dataclass(slots=True)
class Lap:
    """One stage's time, from `started` (a `time.perf_counter()`) to `stop`."""

    stage: Stage
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0

    def stop(self) -> Lap:
        """The stage timed to now, and observed by the metric when the metric times it."""
        self.seconds = time.perf_counter() - self.started
        if self.stage in METRIC_STAGES:
            metrics.labelled(metrics.COMMAND_STAGE, self.stage).observe(self.seconds)
        return self

    @property
    def milliseconds(self) -> int:
        return round(self.seconds * 1000)


@contextmanager
def timed(stage: Stage) -> Iterator[Lap]:
    """`stage` timed over the block, however it ends: a provider call that fails or times out
    spent its time in the stage too."""
    lap = Lap(stage)
    try:
        yield lap
    finally:
        lap.stop()
