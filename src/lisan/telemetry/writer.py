"""The telemetry buffer and its background writer.

The route only appends to a bounded in-memory buffer (it never waits on the database); one task
per process drains it in batches, each batch one transaction. When the database is slow or down
the writer waits and retries, and the buffer absorbs the gap; when the buffer is full the oldest
events are dropped and counted, so a request is never blocked. Closing flushes what is buffered.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy.exc import DataError, IntegrityError

from lisan.core import metrics
from lisan.db.store import Database
from lisan.db.types import utcnow
from lisan.telemetry import repository
from lisan.telemetry.schemas import TelemetryEvent

log = logging.getLogger(__name__)

DEFAULT_CAPACITY = 50_000
# The buffer's bound in bytes, as estimated by `_size`: 50,000 events of 16 long stage names
# each would otherwise hold hundreds of MiB per process.
DEFAULT_CAPACITY_BYTES = 32 * 1024 * 1024
EVENT_OVERHEAD_BYTES = 400  # an event's objects, without its stage names
BATCH_SIZE = 500
LINGER_S = 0.05  # let a batch gather after the first event wakes the writer
RETRY_S = (0.1, 5.0)  # first and longest pause while the database cannot be written
CLOSE_TIMEOUT_S = 30.0


class Loss(StrEnum):
    """Why events accepted were never written: the `cause` of lisan_telemetry_events_lost_total
    (declared to the metrics here, at import)."""

    OVERFLOW = "overflow"  # the buffer was full
    REFUSED = "refused"  # the database refused the event
    ERROR = "error"  # a write failed
    SHUTDOWN = "shutdown"  # still buffered when the writer closed


metrics.LOSS_CAUSES.declare(Loss)


@dataclass(frozen=True, slots=True)
class PendingEvent:
    user_id: uuid.UUID
    event: TelemetryEvent
    received_at: datetime


@dataclass
class WriterStats:
    accepted: int = 0
    stored: int = 0
    dropped_overflow: int = 0  # the buffer was full: the oldest went
    dropped_foreign: int = 0  # named another user's command
    dropped_invalid: int = 0  # the database refused the event itself
    dropped_error: int = 0  # an unexpected error while writing them (logged)
    lost_at_close: int = 0  # still buffered or being retried when the shutdown bound ran out


@dataclass
class TelemetryWriter:
    database: Database
    capacity: int = DEFAULT_CAPACITY
    capacity_bytes: int = DEFAULT_CAPACITY_BYTES
    stats: WriterStats = field(default_factory=WriterStats)
    _bytes: int = 0
    _buffer: deque[PendingEvent] = field(default_factory=deque)
    _wakeup: asyncio.Event = field(default_factory=asyncio.Event)
    _closing: bool = False
    _task: asyncio.Task[None] | None = None
    _in_flight: int = 0  # events taken from the buffer and not yet stored or dropped

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="telemetry-writer")
        self._task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        """The writer only ends at close; ending otherwise is a fault an operator must see."""
        if not self._closing or (not task.cancelled() and task.exception() is not None):
            error = None if task.cancelled() else task.exception()
            log.error(
                "telemetry writer stopped unexpectedly",
                extra={"error": type(error).__name__ if error else "cancelled"},
            )

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def submit(self, user_id: uuid.UUID, event: TelemetryEvent) -> None:
        """Buffer one event; never waits. Past either bound (events or bytes) the oldest go."""
        size = _size(event)
        while self._buffer and (
            len(self._buffer) >= self.capacity or self._bytes + size > self.capacity_bytes
        ):
            self._bytes -= _size(self._buffer.popleft().event)
            self.stats.dropped_overflow += 1
            metrics.labelled(metrics.TELEMETRY_LOST, Loss.OVERFLOW).inc()
            if self.stats.dropped_overflow == 1 or self.stats.dropped_overflow % 1000 == 0:
                log.warning(
                    "telemetry buffer full; dropping oldest",
                    extra={"dropped": self.stats.dropped_overflow},
                )
        self._buffer.append(PendingEvent(user_id, event, utcnow()))
        self._bytes += size
        self.stats.accepted += 1
        metrics.TELEMETRY_BUFFER.set(len(self._buffer))
        self._wakeup.set()

    @property
    def buffered_bytes(self) -> int:
        return self._bytes

    @property
    def pending(self) -> int:
        return len(self._buffer)

    async def close(self, timeout_s: float = CLOSE_TIMEOUT_S) -> None:
        """Stop accepting work and flush what is buffered (graceful shutdown), for at most
        `timeout_s`; whatever is then still buffered or being retried is counted and logged as
        lost. Never raises: the caller disposes of the engines next."""
        self._closing = True
        self._wakeup.set()
        if self._task is None:
            return
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout_s)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
            lost = len(self._buffer) + self._in_flight
            self.stats.lost_at_close = lost
            metrics.labelled(metrics.TELEMETRY_LOST, Loss.SHUTDOWN).inc(lost)
            log.error("telemetry not flushed at shutdown", extra={"lost": lost})
        except Exception as exc:  # the writer died: say so, and let the engines be disposed
            log.error("telemetry writer failed", extra={"error": type(exc).__name__})
        log.info("telemetry writer stopped", extra=vars(self.stats))

    async def _run(self) -> None:
        while True:
            if not self._buffer:
                if self._closing:
                    return
                await self._wakeup.wait()
                self._wakeup.clear()
                if not self._closing:
                    await asyncio.sleep(LINGER_S)
                continue
            batch = [self._buffer.popleft() for _ in range(min(BATCH_SIZE, len(self._buffer)))]
            self._bytes -= sum(_size(pending.event) for pending in batch)
            metrics.TELEMETRY_BUFFER.set(len(self._buffer))
            self._in_flight = len(batch)
            try:
                await self._write_until_done(batch)
            except Exception as exc:  # whatever happens to one batch, the writer goes on
                self.stats.dropped_error += self._in_flight
                metrics.labelled(metrics.TELEMETRY_LOST, Loss.ERROR).inc(self._in_flight)
                log.error(
                    "telemetry batch dropped after an unexpected error",
                    extra={"error": type(exc).__name__, "events": self._in_flight},
                )
            self._in_flight = 0

    async def _write_until_done(self, batch: list[PendingEvent]) -> None:
        """Write the batch, retrying while the database cannot be written; an event the
        database refuses is dropped alone. A fault in the middle of the one-by-one pass (the
        database going down) retries the events not yet written, like any other."""
        pause, longest = RETRY_S
        failing = False
        while True:
            try:
                try:
                    await self._write(batch)
                except (IntegrityError, DataError):
                    batch = await self._write_one_by_one(batch)
                    if batch:
                        raise _Interrupted from None
            except Exception as exc:
                if not failing:
                    failing = True
                    log.error(
                        "telemetry write failed; retrying",
                        extra={"error": type(exc).__name__, "events": len(batch)},
                    )
                await asyncio.sleep(pause)
                pause = min(pause * 2, longest)
                continue
            if failing:
                log.warning("telemetry writes resumed")
            return

    async def _write_one_by_one(self, batch: list[PendingEvent]) -> list[PendingEvent]:
        """One event the database refuses must not hold back the rest. The events not yet
        written when another error stops the pass."""
        for index, pending in enumerate(batch):
            try:
                await self._write([pending])
            except (IntegrityError, DataError):
                self.stats.dropped_invalid += 1
                metrics.labelled(metrics.TELEMETRY_LOST, Loss.REFUSED).inc()
                log.warning("telemetry event refused by the database")
            except Exception:
                return batch[index:]
            self._in_flight -= 1
        return []

    async def _write(self, batch: list[PendingEvent]) -> None:
        named = {p.event.request_id for p in batch if p.event.request_id is not None}
        async with self.database.transaction() as db:
            owners = await repository.list_owners(db, named)
            inserts: dict[uuid.UUID, dict[str, Any]] = {}
            completions: list[dict[str, Any]] = []
            foreign = 0
            for pending in batch:
                row = _row(pending)
                owner = owners.get(row["id"])
                if owner is not None and owner != pending.user_id:
                    foreign += 1  # another user's command: dropped, never merged
                elif owner is not None:
                    completions.append(row)
                else:
                    inserts[row["id"]] = row  # a later event for the same id wins
            await repository.insert_new_events(db, list(inserts.values()))
            await repository.update_phone_side(db, completions)
        self.stats.dropped_foreign += foreign
        self.stats.stored += len(batch) - foreign
        metrics.TELEMETRY_WRITTEN.inc(len(batch) - foreign)
        if foreign:
            metrics.labelled(metrics.TELEMETRY_LOST, Loss.REFUSED).inc(foreign)


def _size(event: TelemetryEvent) -> int:
    return EVENT_OVERHEAD_BYTES + sum(len(name) for name in event.stage_timings)


class _Interrupted(Exception):
    """The one-by-one pass stopped on an error other than a refused event."""


def _row(pending: PendingEvent) -> dict[str, Any]:
    event = pending.event
    return {
        "id": event.request_id or uuid.uuid4(),
        "user_id": pending.user_id,
        "created_at": pending.received_at,
        "outcome": event.outcome.value,
        "duration_ms": event.duration_ms,
        "confidence": event.confidence,
        "client_timings": event.stage_timings,
        "reported_at": pending.received_at,
    }
