"""What a request or the worker does when the database fails it: which failures are the
database's (a 503 the client may retry, never a 500), and whether they are an outage or this
process's own overload, counted and logged once per episode rather than once per request.

The answer the client gets is rendered by `lisan.server.error_handlers`, with the status
`answered_status` names; the classification is the database's, and the worker uses it too.
"""

from __future__ import annotations

import asyncio
import logging
import math
import time

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from lisan.core import metrics
from lisan.core.errors import (
    CLIENT_CLOSED_REQUEST,
    InternalError,
    LisanError,
    ServiceUnavailable,
)

log = logging.getLogger("lisan.error")

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


def answered_status(failure: BaseException) -> int:
    """The status the server's error handlers (`lisan.server.error_handlers`) answer `failure`
    with, for whoever records a failed request (a command event's `ERROR_<status>`), so the
    record says what the client got. A cancelled request (its client went away) was answered
    nothing: `CLIENT_CLOSED_REQUEST` (499)."""
    if isinstance(failure, LisanError):
        return failure.status_code
    if isinstance(failure, DATABASE_UNAVAILABLE):
        return ServiceUnavailable.status_code
    if isinstance(failure, asyncio.CancelledError):
        return CLIENT_CLOSED_REQUEST
    return InternalError.status_code


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
        metrics.labelled(metrics.DB_FAULTS, "overloaded" if overloaded else "unavailable").inc()
        if isinstance(failure, PoolTimeout):
            metrics.DB_POOL_WAITS.inc()
        episode.failed(type(failure).__name__)
        return episode


def _contention(failure: Exception) -> bool:
    if isinstance(failure, PoolTimeout):
        return True
    return isinstance(failure, OperationalError) and "database is locked" in str(failure.orig)
