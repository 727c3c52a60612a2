"""The one renderer of every error: whatever the application raises becomes exactly
`{"error": "<safe message>"}` with its status (`lisan.db.database_trouble.answered_status` says
which status a failure gets, for whoever records a failed request)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route

from lisan.core.errors import (
    InternalError,
    LisanError,
    ServiceUnavailable,
    error_body,
    error_for_status,
)
from lisan.core.schemas import describe_validation_error
from lisan.db.database_trouble import DATABASE_UNAVAILABLE, DatabaseTrouble

log = logging.getLogger("lisan.error")

_Handler = Callable[[Request, Exception], Awaitable[Response]]


def error_response(error: LisanError) -> Response:
    return Response(
        error_body(error.message),
        status_code=error.status_code,
        headers=error.headers,
        media_type="application/json",
    )


async def _lisan_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, LisanError)
    if exc.status_code >= 500:
        log.error("request failed", extra={"status": exc.status_code, "error": exc.message})
    return error_response(exc)


async def _validation_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    error = error_for_status(400)
    error.message = describe_validation_error(list(exc.errors()))
    return error_response(error)


def _http_error(served_routes: Sequence[BaseRoute]) -> _Handler:
    async def handle(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        error = error_for_status(exc.status_code)
        if exc.headers:
            error.headers.update(exc.headers)
        if exc.status_code == 405:
            # Starlette names the methods of the first route on the path only; a path served by
            # several routes (GET and POST /v1/app-grants) must name them all (RFC 9110).
            error.headers["Allow"] = ", ".join(_methods_on_path(request, served_routes))
        return error_response(error)

    return handle


def _methods_on_path(request: Request, routes: Sequence[BaseRoute]) -> list[str]:
    methods: set[str] = set()
    for route in routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(request.scope)
            if match is not Match.NONE:
                methods |= route.methods
    return sorted(methods)


OVERLOADED = "the service is busy; try again shortly"
OUTAGE = "the service is temporarily unavailable; try again shortly"


def _database_trouble(trouble: DatabaseTrouble) -> _Handler:
    async def handle(_request: Request, exc: Exception) -> Response:
        # Nothing about the database leaks to the client; the answer says which trouble it is.
        episode = trouble.failed(exc)
        message = OVERLOADED if episode is trouble.overload else OUTAGE
        return error_response(ServiceUnavailable(message))

    return handle


async def _unexpected_error(_request: Request, _exc: Exception) -> Response:
    # Starlette re-raises after sending this; the request edge logs it once, with its trace.
    return error_response(InternalError())


def install_error_handlers(
    app: FastAPI, *, served_routes: Sequence[BaseRoute], database_trouble: DatabaseTrouble
) -> None:
    """Every error the app can raise becomes exactly `{"error": "<safe message>"}`.

    `served_routes`: every route, flat (FastAPI nests included routers), for the methods a 405
    names. `database_trouble`: the app's one record of database trouble (a process serves one
    app; tests make many)."""
    app.add_exception_handler(Exception, _unexpected_error)
    on_database_trouble = _database_trouble(database_trouble)
    for unavailable in DATABASE_UNAVAILABLE:
        app.add_exception_handler(unavailable, on_database_trouble)
    app.add_exception_handler(LisanError, _lisan_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error(served_routes))
