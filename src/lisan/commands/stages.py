"""The stages of a command, each by one name: the step that times it (`pipeline`), its key in
the command event's `server_timings`, and its value of the `stage` label of
`lisan_command_stage_duration_seconds`. The metric's allowed label values are declared here, at
import, so `core.metrics` names no stage of its own.
"""

from __future__ import annotations

from enum import StrEnum

from lisan.core import metrics


class Stage(StrEnum):
    SPEECH_PRESENCE = "speech_presence"  # step 2, `gate`: a metric only, no timing key
    TRANSCRIPTION = "transcription"  # step 4, `hear`
    PLANNING = "planning"  # step 5, `plan`
    VALIDATION = "validation"  # step 6, `validate`
    TOTAL = "total"  # the whole command: a timing key only, no metric stage


# The stages the metric times (the `stage` label's values).
METRIC_STAGES = frozenset(stage for stage in Stage if stage is not Stage.TOTAL)

metrics.declare_label_values("stage", METRIC_STAGES)
