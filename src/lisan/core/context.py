"""Per-request context readable anywhere in the request's task (the request id, for logs)."""

from __future__ import annotations

from contextvars import ContextVar

request_id_var: ContextVar[str | None] = ContextVar("lisan_request_id", default=None)


def current_request_id() -> str | None:
    return request_id_var.get()
