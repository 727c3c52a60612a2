"""Per-request context readable anywhere in the request's task: the request id (for logs), what
a command came to (set by the command service, read by the request edge's access log), and whom
its provider calls are for (set by the command service, read by the provider's bulkhead)."""

from __future__ import annotations

from contextvars import ContextVar

request_id_var: ContextVar[str | None] = ContextVar("lisan_request_id", default=None)


def current_request_id() -> str | None:
    return request_id_var.get()


# (status, reason, planner) of the command a request ran, once it is decided: ACCEPTED,
# REJECTED, ... or ERROR with what it was answered, and which planner planned it. None for a
# request that ran no command (a replay, a refusal before the command was claimed, any other
# route).
command_outcome_var: ContextVar[tuple[str, str | None, str] | None] = ContextVar(
    "lisan_command_outcome", default=None
)


# The user a command's provider calls are made for: the bulkhead gives each a bounded share.
provider_caller_var: ContextVar[str | None] = ContextVar("lisan_provider_caller", default=None)
