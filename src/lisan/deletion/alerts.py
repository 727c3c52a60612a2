"""The operator alert for a failed deletion job, sent from an outbox.

The transaction that marks a job `failed` also sets its `alert_pending`; a worker sends the
alert (a CRITICAL log line, and a POST to LISAN_ALERT_WEBHOOK_URL when set, tried three times
with jitter by tenacity) and clears the flag only once the POST succeeded, or once the line was
logged when no webhook is set. A worker that dies between the two leaves the alert to the next
poll of any worker: it is never lost.

A worker takes an alert with a lease (the failed job's `lease_until`, which nothing else uses
once the job has failed) before it sends it: workers never send one alert at the same moment;
an alert whose sender died goes out again once the lease runs out; a webhook that is down is
tried again after it. Delivery is at least once: an operator may be told twice, never not at all.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta

import httpx
from tenacity import AsyncRetrying, stop_after_attempt, wait_exponential_jitter

from lisan.core.settings import Settings
from lisan.db.store import Database
from lisan.db.types import utcnow
from lisan.deletion import repository

log = logging.getLogger(__name__)

ALERT_LEASE_S = 60.0  # how long one sender holds an alert: its tries, or the pause after them
ALERT_TIMEOUT_S = 5.0
ALERT_TRIES = 3


@dataclass(frozen=True, slots=True)
class Alert:
    task_id: uuid.UUID
    attempts: int
    error: str


class Alerts:
    def __init__(self, settings: Settings, database: Database) -> None:
        self._settings = settings
        self._database = database

    async def send_due(self) -> int:
        """Send every alert due now; how many went out. With none due, one plain read."""
        sent = 0
        while alert := await self._take():
            if not await deliver(self._settings, alert):
                break  # the webhook is down: this alert is tried again after its lease
            async with self._database.transaction() as db:
                await repository.update_alert_sent(db, alert.task_id)
            sent += 1
        return sent

    async def _take(self) -> Alert | None:
        now = utcnow()
        async with self._database.read_transaction() as db:
            if not await repository.exists_due_alert(db, now):
                return None
        async with self._database.transaction() as db:
            job = await repository.get_next_due_alert(db, now)
            if job is None:  # another worker took it first
                return None
            lease_until = now + timedelta(seconds=ALERT_LEASE_S)
            await repository.update_job(db, job.id, {"lease_until": lease_until})
            return Alert(job.id, job.attempts, job.last_error or "unknown")


async def deliver(settings: Settings, alert: Alert) -> bool:
    """Tell an operator: always a CRITICAL log line; a webhook POST too when one is set. True
    once the operator was told (the POST succeeded, or the line is all there is)."""
    fields = {"task_id": str(alert.task_id), "attempts": alert.attempts, "error": alert.error}
    log.critical("deletion job failed: the user's data is not deleted", extra=fields)
    url = settings.alert_webhook_url
    if url is None:
        return True
    body = {"event": "deletion_job_failed", **fields}
    try:
        async with httpx.AsyncClient(timeout=ALERT_TIMEOUT_S) as client:
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(ALERT_TRIES),
                wait=wait_exponential_jitter(multiplier=0.2, max=2.0),
                reraise=True,
            ):
                with attempt:
                    response = await client.post(str(url), json=body)
                    response.raise_for_status()
    except httpx.HTTPError as exc:
        log.error(
            "operator alert could not be delivered; it will be tried again",
            extra={"task_id": str(alert.task_id), "error": type(exc).__name__},
        )
        return False
    return True
