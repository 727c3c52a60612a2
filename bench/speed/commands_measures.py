"""What `bench.commands` measures in a round: what wrk saw (`Load`), the server's memory
(`Memory`), a round of the service (`Round`, with the command events it wrote) and a round of
the floor or of another build beside the service (`FloorRound`), and a run's rounds
(`Results`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from lisan.commands.stages import Stage

RSS_EARLY_S = 5.0  # "RSS at ~5 s" into a round


@dataclass
class Load:
    """One wrk run."""

    requests: int
    requests_per_s: float
    p50_ms: float
    p99_ms: float
    non_2xx: int
    socket_errors: int
    socket_detail: str  # wrk's own words: "connect C, read R, write W, timeout T"
    statuses: Counter[int]


@dataclass
class Memory:
    """The server's RSS (KiB) during a round: (seconds into the round, VmRSS) samples."""

    samples: list[tuple[float, int]] = field(default_factory=list)
    high_water_kib: int = 0  # VmHWM at the end: the kernel's own peak since the process began

    @property
    def peak_kib(self) -> int:
        return max(kib for _, kib in self.samples)

    @property
    def early_kib(self) -> int:
        return next((kib for at, kib in self.samples if at >= RSS_EARLY_S), self.samples[-1][1])

    @property
    def end_kib(self) -> int:
        return self.samples[-1][1]


@dataclass
class Round:
    load: Load
    memory: Memory
    events: list[tuple[str, dict[str, int]]]  # (status, server_timings) of the round's commands
    cpu_s: float  # the server's CPU time (user + system) from the round's start until settled
    provider_cpu_s: float  # the fake provider's, over the same time (it shares the machine)
    postgres_cpu_s: float  # PostgreSQL's server processes', over the same time
    machine_busy: float  # the share of all the machine's cores busy, over the same time

    @property
    def cpu_ms_per_command(self) -> float:
        return self.cpu_s * 1000 / len(self.events) if self.events else float("nan")

    @property
    def cpu_ms_per_answer(self) -> float:
        """Per command wrk saw answered, as the floor's is counted."""
        return ms_per_answer(self.cpu_s, self.load)

    @property
    def provider_cpu_ms_per_command(self) -> float:
        return self.provider_cpu_s * 1000 / len(self.events) if self.events else float("nan")

    @property
    def postgres_cpu_ms_per_command(self) -> float:
        """Per command wrk completed: PostgreSQL's CPU is read when wrk stops."""
        return self.postgres_cpu_s * 1000 / self.load.requests if self.load.requests else 0.0

    def stage_ms(self, stage: str) -> list[float]:
        return [float(t[stage]) for _, t in self.events if stage in t]

    def service_ms(self) -> list[float]:
        """total - transcription - planning of every command that reached both provider calls."""
        return [
            float(t[Stage.TOTAL] - t[Stage.TRANSCRIPTION] - t[Stage.PLANNING])
            for _, t in self.events
            if {Stage.TOTAL, Stage.TRANSCRIPTION, Stage.PLANNING} <= t.keys()
        ]


@dataclass
class FloorRound:
    """One round of the raw floor: what wrk saw and the floor's CPU over it."""

    load: Load
    cpu_s: float
    machine_busy: float

    @property
    def cpu_ms_per_answer(self) -> float:
        return ms_per_answer(self.cpu_s, self.load)


def ms_per_answer(cpu_s: float, load: Load) -> float:
    """A server's CPU over a round per command wrk saw answered: the ratio's figure."""
    return cpu_s * 1000 / load.requests if load.requests else float("nan")


@dataclass
class Results:
    lisan: list[Round]
    floor: list[FloorRound]
    refusals: dict[str, float] = field(default_factory=dict)  # the service's own counters
    beside: dict[str, list[FloorRound]] = field(default_factory=dict)  # measured as the floor
