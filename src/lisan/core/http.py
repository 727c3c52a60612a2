"""HTTP plumbing shared by every domain: JSON responses, the error renderer, dependency aliases."""

from __future__ import annotations

import asyncio
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

from lisan.core import metrics
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


class _Episode:
    """One kind of trouble that fails many requests at once is logged as an episode: one warning
    when it starts, then a count every EPISODE_LOG_EVERY_S, never a line (or a traceback) per
    request. Quiet for EPISODE_LOG_EVERY_S, the next failure starts a new episode."""

    def __init__(self, started: str, ongoing: str) -> None:
        self._started, self._ongoing = started, ongoing
        self._failures = 0
        self._last_log = -math.inf
        self.last_failure = -math.inf

    def failed(self, error: str) -> None:
        now = time.monotonic()
        if not self.ongoing(now):
            self._failures = 0
            log.warning(self._started, extra={"error": error})
            self._last_log = now
        self._failures += 1
        self.last_failure = now
        if now - self._last_log > EPISODE_LOG_EVERY_S:
            log.warning(self._ongoing, extra={"error": error, "failed_requests": self._failures})
            self._last_log = now

    def ongoing(self, now: float) -> bool:
        return now - self.last_failure <= EPISODE_LOG_EVERY_S


EPISODE_LOG_EVERY_S = 30.0

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
OVERLOADED = "the service is busy; try again shortly"
OUTAGE = "the service is temporarily unavailable; try again shortly"


def answered_status(failure: BaseException) -> int:
    """The status the handlers below answer `failure` with, for whoever records a failed
    request (a command event's `ERROR_<status>`), so the record says what the client got. A
    cancelled request (its client went away) was answered nothing: 499, nginx's "client closed
    request"."""
    if isinstance(failure, LisanError):
        return failure.status_code
    if isinstance(failure, DATABASE_UNAVAILABLE):
        return ServiceUnavailable.status_code
    if isinstance(failure, asyncio.CancelledError):
        return CLIENT_CLOSED_REQUEST
    return InternalError.status_code


CLIENT_CLOSED_REQUEST = 499


class DatabaseTrouble:
    """Whether a request failed for want of the database because the database is unavailable (an
    outage: refused, reset or closed connections, statements that time out) or because this
    process is overloaded (every pooled connection stayed in use for the pool's whole wait, or
    SQLite's write lock stayed held, while the database itself answers). Under a load that
    saturates the process, requests queue for connections that other requests hold while they
    wait for the event loop: PostgreSQL is idle, and calling that an outage sends the operator
    to the wrong place. A pool wait that runs out during an outage is part of it."""

    def __init__(self) -> None:
        self.outage = _Episode("database unavailable", "database still unavailable")
        self.overload = _Episode(
            "service overloaded: no database connection free in time",
            "service still overloaded",
        )

    def classify(self, failure: Exception) -> _Episode:
        if _contention(failure) and not self.outage.ongoing(time.monotonic()):
            return self.overload
        return self.outage

    def failed(self, failure: Exception) -> _Episode:
        """Count and log `failure` as the trouble it is; the episode it belongs to."""
        episode = self.classify(failure)
        overloaded = episode is self.overload
        metrics.DB_FAULTS.labels("overloaded" if overloaded else "unavailable").inc()
        if isinstance(failure, PoolTimeout):
            metrics.DB_POOL_WAITS.inc()
        episode.failed(type(failure).__name__)
        return episode


def _contention(failure: Exception) -> bool:
    if isinstance(failure, PoolTimeout):
        return True
    return isinstance(failure, OperationalError) and "database is locked" in str(failure.orig)


async def _database_trouble(request: Request, exc: Exception) -> Response:
    # Nothing about the database leaks to the client; the answer says which trouble it is.
    trouble: DatabaseTrouble = request.app.state.database_trouble
    episode = trouble.failed(exc)
    message = OVERLOADED if episode is trouble.overload else OUTAGE
    return error_response(ServiceUnavailable(message))


async def _unexpected_error(_request: Request, _exc: Exception) -> Response:
    # Starlette re-raises after sending this; the request edge logs it once, with its trace.
    return error_response(InternalError())


def install_error_handlers(app: FastAPI) -> None:
    """Every error the app can raise becomes exactly `{"error": "<safe message>"}`."""
    app.add_exception_handler(Exception, _unexpected_error)
    # One record of database trouble per app (a process serves one app; tests make many).
    app.state.database_trouble = DatabaseTrouble()
    for unavailable in DATABASE_UNAVAILABLE:
        app.add_exception_handler(unavailable, _database_trouble)
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
