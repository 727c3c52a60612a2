"""One error base class carrying status and a safe message, rendered in one place."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import orjson

# nginx's "client closed request": the status a request is recorded with (access log, metrics,
# a command's event) when its client went away before it was answered. No client ever sees it.
CLIENT_CLOSED_REQUEST = 499


class LisanError(Exception):
    """An error the client may see: its status, a safe message and any headers it needs."""

    status_code: ClassVar[int] = 500
    default_message: ClassVar[str] = "internal error"
    default_headers: ClassVar[Mapping[str, str]] = {}

    def __init__(self, message: str | None = None, *, headers: Mapping[str, str] | None = None):
        self.message = message or self.default_message
        self.headers = {**self.default_headers, **(headers or {})}
        super().__init__(self.message)


class BadRequest(LisanError):
    status_code = 400
    default_message = "invalid request"


class Unauthorized(LisanError):
    status_code = 401
    default_message = "authentication required"


class NotAuthenticated(Unauthorized):
    """401 with the challenge the contract asks for (`error="invalid_token"` when one was sent)."""

    def __init__(self, *, token_sent: bool, message: str = "invalid or missing credentials"):
        challenge = 'Bearer realm="lisan"'
        if token_sent:
            challenge += ', error="invalid_token"'
        super().__init__(message, headers={"WWW-Authenticate": challenge})


class Forbidden(LisanError):
    status_code = 403
    default_message = "forbidden"


class NotFound(LisanError):
    status_code = 404
    default_message = "not found"


class MethodNotAllowed(LisanError):
    status_code = 405
    default_message = "method not allowed"


class Conflict(LisanError):
    status_code = 409
    default_message = "conflict"
    # The contract has every 409 carry Retry-After.
    default_headers = {"Retry-After": "1"}


class PayloadTooLarge(LisanError):
    status_code = 413
    default_message = "request body too large"


class RequestTimeout(LisanError):
    """408: the request did not arrive within its time bounds; the connection is closed."""

    status_code = 408
    default_message = "the request was not received in time"
    default_headers = {"Connection": "close"}


class RequestHeaderFieldsTooLarge(LisanError):
    """431: the request line and headers passed the server's bounds (lisan.server.request_head)."""

    status_code = 431
    default_message = "request header fields too large"


class UnprocessableEntity(LisanError):
    status_code = 422
    default_message = "unprocessable request"


class TooManyRequests(LisanError):
    status_code = 429
    default_message = "too many requests"
    default_headers = {"Retry-After": "1"}


class InternalError(LisanError):
    status_code = 500
    default_message = "internal error"


class BadGateway(LisanError):
    status_code = 502
    default_message = "the voice provider answered in a shape the service does not understand"


class ServiceUnavailable(LisanError):
    status_code = 503
    default_message = "service temporarily unavailable"
    default_headers = {"Retry-After": "5"}


class GatewayTimeout(LisanError):
    status_code = 504
    default_message = "the voice provider did not answer in time"


_BY_STATUS: dict[int, type[LisanError]] = {
    cls.status_code: cls
    for cls in (
        BadRequest,
        Unauthorized,
        Forbidden,
        NotFound,
        MethodNotAllowed,
        Conflict,
        PayloadTooLarge,
        UnprocessableEntity,
        TooManyRequests,
        InternalError,
        BadGateway,
        ServiceUnavailable,
        GatewayTimeout,
    )
}


def error_for_status(status_code: int) -> LisanError:
    """The error a bare status (from the router or a library) stands for, with a safe message."""
    cls = _BY_STATUS.get(status_code)
    if cls is None:
        return InternalError() if status_code >= 500 else BadRequest()
    return cls()


def error_body(message: str) -> bytes:
    return orjson.dumps({"error": message})
