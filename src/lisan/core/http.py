"""HTTP plumbing shared by every domain: JSON responses, the error renderer, dependency aliases."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import AsyncIterator, Mapping
from typing import Annotated, Any

import orjson
from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncSession
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import BaseRoute, Match, Route

from lisan.core.database import unit_of_work
from lisan.core.errors import (
    InternalError,
    LisanError,
    ServiceUnavailable,
    error_body,
    error_for_status,
)
from lisan.core.resources import Resources
from lisan.core.schemas import ResponseModel, describe_validation_error
from lisan.core.settings import Settings

log = logging.getLogger("lisan.error")


class JsonResponse(Response):
    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        if isinstance(content, ResponseModel):
            return content.to_json()
        return orjson.dumps(content)


# Responses that carry credentials, or a capability such as a deletion task id, are never cached.
NO_STORE = {"Cache-Control": "no-store"}


def json_response(
    content: Any, status_code: int = 200, headers: Mapping[str, str] | None = None
) -> JsonResponse:
    return JsonResponse(content, status_code=status_code, headers=headers)


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


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    error = error_for_status(exc.status_code)
    if exc.headers:
        error.headers.update(exc.headers)
    if exc.status_code == 405:
        # Starlette names the methods of the first route on the path only; a path served by
        # several routes (GET and POST /v1/app-grants) must name them all (RFC 9110).
        error.headers["Allow"] = ", ".join(_methods_on_path(request))
    return error_response(error)


def _methods_on_path(request: Request) -> list[str]:
    methods: set[str] = set()
    routes: list[BaseRoute] = request.app.state.served_routes  # FastAPI nests included routers
    for route in routes:
        if isinstance(route, Route) and route.methods:
            match, _ = route.matches(request.scope)
            if match is not Match.NONE:
                methods |= route.methods
    return sorted(methods)


class _Outage:
    """A database that cannot be reached fails every request: one warning when that starts,
    then a count every OUTAGE_LOG_EVERY_S, never a line (or a traceback) per request. Quiet for
    OUTAGE_LOG_EVERY_S, the next failure starts a new outage."""

    def __init__(self) -> None:
        self._failures = 0
        self._last_log = -math.inf
        self._last_failure = -math.inf

    def failed(self, error: str) -> None:
        now = time.monotonic()
        if now - self._last_failure > OUTAGE_LOG_EVERY_S:
            self._failures = 0
            log.warning("database unavailable", extra={"error": error})
            self._last_log = now
        self._failures += 1
        self._last_failure = now
        if now - self._last_log > OUTAGE_LOG_EVERY_S:
            log.warning(
                "database still unavailable",
                extra={"error": error, "failed_requests": self._failures},
            )
            self._last_log = now


OUTAGE_LOG_EVERY_S = 30.0

# What a database that is down, locked, frozen or gone raises: refused or reset connections
# (asyncpg raises them bare), a closed connection, a lock or statement timeout, a pool with no
# connection free. Each is a 503 the client may retry, never a 500.
DATABASE_UNAVAILABLE: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    PoolTimeout,
    ConnectionError,
    TimeoutError,
)


async def _database_busy(request: Request, exc: Exception) -> Response:
    # Nothing about the database leaks to the client.
    outage: _Outage = request.app.state.database_outage
    outage.failed(type(exc).__name__)
    return error_response(ServiceUnavailable("the service is busy; try again shortly"))


async def _unexpected_error(_request: Request, _exc: Exception) -> Response:
    # Starlette re-raises after sending this; the request edge logs it once, with its trace.
    return error_response(InternalError())


def install_error_handlers(app: FastAPI) -> None:
    """Every error the app can raise becomes exactly `{"error": "<safe message>"}`."""
    app.add_exception_handler(Exception, _unexpected_error)
    # One outage record per app (a process serves one app; tests make many).
    app.state.database_outage = _Outage()
    for unavailable in DATABASE_UNAVAILABLE:
        app.add_exception_handler(unavailable, _database_busy)
    app.add_exception_handler(LisanError, _lisan_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)


async def get_resources(request: Request) -> Resources:
    # async on purpose: FastAPI runs a sync dependency in a worker thread.
    resources: Resources = request.app.state.resources
    return resources


async def get_settings_dep(request: Request) -> Settings:
    settings: Settings = request.app.state.resources.settings
    return settings


async def get_db_session(request: Request) -> AsyncIterator[AsyncSession]:
    """The request's unit of work: services add to it; it is committed here, once, at the end."""
    async with unit_of_work(request.app.state.resources.sessions) as session:
        yield session


async def get_read_session(request: Request) -> AsyncIterator[AsyncSession]:
    """A unit of work for a route that only reads: on SQLite it never takes the write lock."""
    async with unit_of_work(request.app.state.resources.read_sessions) as session:
        yield session


async def request_id(request: Request) -> str:
    rid: str = request.state.request_id
    return rid


AppResources = Annotated[Resources, Depends(get_resources)]
AppSettings = Annotated[Settings, Depends(get_settings_dep)]
# scope="function": commit before the response is sent, so a failed commit is an error response.
DbSession = Annotated[AsyncSession, Depends(get_db_session, scope="function")]
ReadSession = Annotated[AsyncSession, Depends(get_read_session, scope="function")]
RequestId = Annotated[str, Depends(request_id)]
