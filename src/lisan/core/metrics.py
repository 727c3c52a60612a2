"""Prometheus metrics (prometheus-client): what an operator graphs and alerts on.

Served on a listener of its own (`LISAN_METRICS_PORT`, off by default:
`lisan.server.metrics_listener`), never on the API's port, which serves exactly the contract's
routes.

With several server processes (`lisan serve --workers N`) each process writes its values to
files in the library's multiprocess directory and the listener adds them up; with one process
the values live in memory. Gauges say how they add up across processes: a queue depth is the
sum over live processes (`livesum`); a state every process reads from the same place (the
deletion queue) is the value most recently set by any process (`mostrecent`); a breaker's
state is each live process's own (`liveall`: an alert takes the maximum).

Label values come from bounded sets only, never from a request: a route is its template (no ids),
a method outside the standard ones is `other`, a command's reason is one of the codes its owners
define, else `other`. Each set is a `LabelValues`; the values a domain names are declared by
that domain, at import: `lisan.commands` its statuses, stages, the gate's and failures' reasons,
the transcriber's doubts; `lisan.plans` its refusals; `lisan.providers` its calls, their outcomes
and the planner's declines; `lisan.deletion`, `lisan.telemetry` and the worker theirs. This
module names only its own (HTTP methods and statuses, the database's faults). `LABEL_VALUES`
names every set; a test holds every label of every metric to them.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any, TypeVar

from prometheus_client import Counter, Gauge, Histogram

OTHER = "other"

_SECONDS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

# --- requests ----------------------------------------------------------------------------------
HTTP_REQUESTS = Counter(
    "lisan_http_requests", "Requests answered, by route template, method and status.",
    ["route", "method", "status"],
)  # fmt: skip
HTTP_DURATION = Histogram(
    "lisan_http_request_duration_seconds", "Time from a request's arrival to its answer.",
    ["route", "method"], buckets=_SECONDS,
)  # fmt: skip

# --- commands ----------------------------------------------------------------------------------
COMMANDS = Counter(
    "lisan_commands",
    "Commands answered, by status (ERROR: a 4xx/5xx), reason and the planner that planned.",
    ["status", "reason", "planner"],
)  # fmt: skip
COMMAND_STAGE = Histogram(
    "lisan_command_stage_duration_seconds", "Time a command spent in each pipeline stage.",
    ["stage"], buckets=_SECONDS,
)  # fmt: skip

# --- the voice provider ------------------------------------------------------------------------
PROVIDER_CALL_TOTAL = Counter(
    "lisan_provider_calls", "Calls to the voice provider, by call and outcome.",
    ["call", "outcome"],
)  # fmt: skip
PROVIDER_DURATION = Histogram(
    "lisan_provider_call_duration_seconds", "Time a provider call took, whatever its outcome.",
    ["call"], buckets=_SECONDS,
)  # fmt: skip
BREAKER_OPEN = Gauge(
    "lisan_provider_breaker_open",
    "1 while the circuit breaker of a provider call is open (no calls go out) or its half-open "
    "probe has not yet closed it, else 0, as this process last found it.",
    ["call"],
    multiprocess_mode="liveall",
)

# --- the offline decoder pool ------------------------------------------------------------------
DECODER_QUEUE = Gauge(
    "lisan_decoder_queue_depth", "Decodes waiting for a decoder.", multiprocess_mode="livesum"
)
DECODE_DURATION = Histogram(
    "lisan_decode_duration_seconds",
    "Time from an offline decode's submission to its answer (its wait for a decoder included).",
    buckets=_SECONDS,
)
DECODER_REFUSALS = Counter(
    "lisan_decoder_refusals", "Decodes refused because the pool's queue was full."
)

# --- telemetry ---------------------------------------------------------------------------------
TELEMETRY_BUFFER = Gauge(
    "lisan_telemetry_buffer_depth", "Telemetry events buffered, not yet written.",
    multiprocess_mode="livesum",
)  # fmt: skip
TELEMETRY_WRITTEN = Counter("lisan_telemetry_events_written", "Telemetry events written.")
TELEMETRY_LOST = Counter(
    "lisan_telemetry_events_lost", "Telemetry events accepted but never written, by cause: "
    "overflow (a full buffer), refused (by the database), error (a failed write), shutdown.",
    ["cause"],
)  # fmt: skip

# --- deletion and purges -----------------------------------------------------------------------
DELETION_JOBS = Gauge(
    "lisan_deletion_jobs", "Deletion jobs by state, as the worker last counted them.",
    ["state"], multiprocess_mode="mostrecent",
)  # fmt: skip
DELETION_OLDEST_QUEUED = Gauge(
    "lisan_deletion_oldest_pending_age_seconds",
    "Age of the oldest deletion job not yet finished (queued, running or retrying); 0 if none.",
    multiprocess_mode="mostrecent",
)
DELETION_ATTEMPTS = Counter(
    "lisan_deletion_attempts", "Deletion job attempts, by outcome.", ["outcome"]
)
PURGED = Counter("lisan_purged_rows", "Rows and files removed by the purges, by kind.", ["kind"])

# --- the database and Redis --------------------------------------------------------------------
DB_POOL_IN_USE = Gauge(
    "lisan_db_pool_connections_in_use", "Database connections checked out of the pool.",
    multiprocess_mode="livesum",
)  # fmt: skip
DB_POOL_WAITS = Counter(
    "lisan_db_pool_waits", "Requests that waited for a pooled connection past the pool's bound."
)
DB_FAULTS = Counter(
    "lisan_db_faults",
    "Requests failed for want of the database: unavailable (an outage) or overloaded (this "
    "process had no connection free in time).",
    ["kind"],
)
REDIS_FALLBACKS = Counter(
    "lisan_redis_fallbacks", "Times Redis did not answer and a component fell back to memory.",
    ["component"],
)  # fmt: skip

# Every label's values: its `LabelValues` add theirs at declaration. "route" is not here: its
# values are the app's route templates and `unmatched`, known once the app is built.
LABEL_VALUES: dict[str, frozenset[str]] = {}
UNMATCHED_ROUTE = "unmatched"


class LabelValues:
    """The values a label takes, each set declared by whoever names them (a domain at its
    import: core names none of a domain's); `bounded` counts any other value as `other`.
    Every declared value joins `LABEL_VALUES[label]`, which a label of several metrics
    shares."""

    def __init__(self, label: str, *values: str) -> None:
        self.label = label
        self.values: frozenset[str] = frozenset()
        self.declare(values)

    def declare(self, values: Iterable[str]) -> None:
        self.values |= frozenset(values)
        LABEL_VALUES[self.label] = LABEL_VALUES.get(self.label, frozenset()) | self.values

    def bounded(self, value: str) -> str:
        return value if value in self.values else OTHER


# Core's own: a request's method and status, the database's faults.
METHODS = LabelValues("method", "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", OTHER)
STATUSES = LabelValues("status", *(str(code) for code in range(100, 600)))
DATABASE_FAULTS = LabelValues("kind", "unavailable", "overloaded")
# Declared by their owners.
NO_REASON = "none"  # the `reason` of a command answered without one (a plan)
# The statuses a command is counted by: its answer's, or ERROR (a 4xx/5xx) (lisan.commands).
COMMAND_STATUSES = LabelValues("status")
# What a command was answered for, declared by whoever decides it: the plan rules' refusals,
# the transcriber's doubts, the planner's declines, the gate's and a failure's (lisan.commands).
COMMAND_REASONS = LabelValues("reason", NO_REASON, OTHER)
COMMAND_PLANNERS = LabelValues("planner")  # which planner planned (lisan.commands.stages)
PROVIDER_CALLS = LabelValues("call")  # the voice provider's calls (lisan.providers.base)
PROVIDER_OUTCOMES = LabelValues("outcome")  # how a call ended (lisan.providers.base)
STAGES = LabelValues("stage")  # the command stages the metric times (lisan.commands.stages)
PURGE_KINDS = LabelValues("kind")  # what each purge removes (lisan.worker)
DELETION_STATES = LabelValues("state")  # a deletion job's (lisan.deletion.jobs)
DELETION_OUTCOMES = LabelValues("outcome")  # a deletion attempt's (lisan.deletion.jobs)
LOSS_CAUSES = LabelValues("cause")  # why telemetry events were lost (lisan.telemetry.writer)
# What fell back to memory while Redis was away (lisan.core.ratelimit, lisan.providers.breaker).
REDIS_COMPONENTS = LabelValues("component")


MetricT = TypeVar("MetricT", Counter, Gauge, Histogram)


@cache
def _child(metric: Any, *values: str) -> Any:
    return metric.labels(*values)


def labelled(metric: MetricT, *values: str) -> MetricT:
    """`metric.labels(*values)`, made once per set of values and kept: prometheus-client checks
    the values and takes a lock on every `labels` call, which every request would pay twice (see
    docs/benchmarks.md, "Measured choices"). The cache is bounded because the values are."""
    child: MetricT = _child(metric, *values)
    return child


def observe_request(route: str, method: str, status: int, seconds: float) -> None:
    method = METHODS.bounded(method)
    labelled(HTTP_REQUESTS, route, method, STATUSES.bounded(str(status))).inc()
    labelled(HTTP_DURATION, route, method).observe(seconds)


def count_command(status: str, reason: str | None, planner: str) -> None:
    labelled(
        COMMANDS,
        COMMAND_STATUSES.bounded(status),
        COMMAND_REASONS.bounded(reason or NO_REASON),
        COMMAND_PLANNERS.bounded(planner),
    ).inc()
