"""The access log and the request metrics: one line in `lisan.access` for every request, and
the same request (and the command it ran, if any) counted in the metrics, so that logs and
metrics tell one story. The request edge writes it once a request is answered; the request
head's bounds write it for a request refused before its head was read."""

from __future__ import annotations

import logging
import time

from starlette.types import Scope

from lisan.core import metrics
from lisan.core.context import command_outcome_var

access_log = logging.getLogger("lisan.access")


def route_template(scope: Scope) -> str:
    """The template of the route that served the request (`/v1/deletion-jobs/{task_id}`: never
    an id), or `unmatched`: what logs and metrics name a request by."""
    route = scope.get("route")
    template = getattr(route, "path", None)
    return template if isinstance(template, str) else metrics.UNMATCHED_ROUTE


def log_access(scope: Scope, status: int, started: float) -> None:
    """The access log's one line for a request (`started`: its `time.perf_counter()`), and the
    same request (and the command it ran, if any) in the metrics: logs and metrics tell one
    story."""
    seconds = time.perf_counter() - started
    route = route_template(scope)
    metrics.observe_request(route, scope["method"], status, seconds)
    state = scope["state"]
    fields = {
        "request_id": state["request_id"],
        "method": scope["method"],
        "path": scope["path"],
        "route": route,
        "status": status,
        "duration_ms": round(seconds * 1000, 3),
        "client": (scope.get("client") or ("-",))[0],
    }
    command = command_outcome_var.get()
    if command is not None:
        metrics.count_command(*command)
        fields["command_status"], fields["command_reason"], fields["command_planner"] = command
    access_log.info("request", extra=fields)
