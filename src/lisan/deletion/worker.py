"""The background worker: deletion jobs, and the purges that keep tables from growing forever.

It runs inside `lisan serve` (unless LISAN_RUN_WORKER=false) and alone as `lisan worker`; any
number may run at once, in any processes. A job is claimed with a lease (`repository`), so a
worker that dies mid-job leaves it to be claimed again once the lease expires. Every step is
safe to repeat: removing objects that are gone, deleting a row that is gone, and the outcome of
an attempt is written only while that attempt still holds the job.

A job's steps: remove the user's storage objects, then delete the user row (every table that
references it cascades) and mark the job completed, clearing its `user_id`. A failing step puts
the job back as `retrying`, due after an exponential backoff with jitter (tenacity's
`wait_exponential_jitter`, from LISAN_DELETION_BACKOFF_S); after LISAN_DELETION_MAX_ATTEMPTS it
is `failed`, and an operator is alerted: a CRITICAL log, and a POST to LISAN_ALERT_WEBHOOK_URL
when set (retried a few times with jitter by tenacity).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    stop_after_attempt,
    wait_exponential_jitter,
)

from lisan.auth import repository as sessions
from lisan.commands import repository as commands
from lisan.commands.audio import audio_owners, remove_audio
from lisan.consent import service as consent
from lisan.core.database import unit_of_work
from lisan.core.settings import Settings
from lisan.core.types import utcnow
from lisan.deletion import repository
from lisan.deletion.models import JobStatus
from lisan.users import service as users

log = logging.getLogger(__name__)

LEASE_S = 300.0  # a job's steps take well under a second; a lease this long means a dead worker
MAX_BACKOFF_S = 3600.0
PURGE_BATCH = 500  # rows (or folders) per purge statement: short transactions, small locks
PURGE_EVERY_S = 60.0
POLL_S = 1.0
MAX_FAULT_PAUSE_S = 30.0
ALERT_TIMEOUT_S = 5.0
ALERT_TRIES = 3

RemoveObjects = Callable[[Path, str], None]  # (storage dir, user id); blocking


@dataclass(frozen=True, slots=True)
class Purged:
    idempotency_records: int
    sessions: int
    audio_folders: int


class Worker:
    def __init__(
        self,
        settings: Settings,
        sessions: async_sessionmaker[AsyncSession],
        *,
        lease_s: float = LEASE_S,
        remove_objects: RemoveObjects = remove_audio,
    ) -> None:
        self._settings = settings
        self._sessions = sessions
        self._lease = timedelta(seconds=lease_s)
        self._remove_objects = remove_objects
        self._backoff = wait_exponential_jitter(
            multiplier=settings.deletion_backoff_s,
            max=MAX_BACKOFF_S,
            jitter=settings.deletion_backoff_s,
        )

    async def run_forever(
        self, poll_s: float = POLL_S, purge_every_s: float = PURGE_EVERY_S
    ) -> None:
        """Until cancelled: every due job, then the purges now and then. A fault (the database
        down) is logged and tried again at the next poll, never the end of the worker."""
        loop = asyncio.get_running_loop()
        next_purge = loop.time()
        pause = poll_s
        while True:
            try:
                await self.run_due()
                if loop.time() >= next_purge:
                    await self.purge()
                    next_purge = loop.time() + purge_every_s
                pause = poll_s
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the worker outlives any one fault
                log.error("worker cycle failed", extra={"error": type(exc).__name__})
                pause = min(pause * 2, MAX_FAULT_PAUSE_S)  # a database that is down: less noise
            await asyncio.sleep(pause)

    async def run_due(self) -> int:
        """Run every job that is due now; how many were run."""
        count = 0
        while await self.run_one():
            count += 1
        return count

    async def run_one(self) -> bool:
        """Claim one due job and carry it out; False when none was due."""
        async with unit_of_work(self._sessions) as session:
            job = await repository.claim_due(session, utcnow(), self._lease)
            if job is None:
                return False
            task_id, user_id, attempt = job.id, job.user_id, job.attempts
        try:
            await self._carry_out(task_id, user_id, attempt)
        except Exception as exc:  # any failing step: a retry or a failure
            await self._failed_attempt(task_id, attempt, exc)
        return True

    async def _carry_out(self, task_id: uuid.UUID, user_id: uuid.UUID | None, attempt: int) -> None:
        if user_id is not None:
            await asyncio.to_thread(self._remove_objects, self._settings.storage_dir, str(user_id))
        async with unit_of_work(self._sessions) as session:
            if user_id is not None:
                await users.remove_account(session, user_id)
            done = await repository.finish(
                session,
                task_id,
                attempt,
                {
                    "status": JobStatus.COMPLETED,
                    "completed_at": utcnow(),
                    "user_id": None,  # nothing about the user outlives them
                    "lease_until": None,
                    "last_error": None,
                },
            )
            if not done:  # overtaken after our lease expired: the newer attempt decides
                raise _Overtaken
        log.info("deletion job completed", extra={"task_id": str(task_id), "attempt": attempt})

    async def _failed_attempt(self, task_id: uuid.UUID, attempt: int, exc: Exception) -> None:
        if isinstance(exc, _Overtaken):
            return
        error = f"{type(exc).__name__}: {exc}"[:200]
        final = attempt >= self._settings.deletion_max_attempts
        values: dict[str, object] = {"lease_until": None, "last_error": error}
        if final:
            values["status"] = JobStatus.FAILED
        else:
            values["status"] = JobStatus.RETRYING
            values["run_after"] = utcnow() + timedelta(seconds=self.backoff_s(attempt))
        async with unit_of_work(self._sessions) as session:
            if not await repository.finish(session, task_id, attempt, values):
                return
        fields = {"task_id": str(task_id), "attempt": attempt, "error": type(exc).__name__}
        if final:
            await self._alert(task_id, attempt, error)
        else:
            log.warning("deletion job will be retried", extra=fields)

    def backoff_s(self, attempt: int) -> float:
        """Seconds before the next attempt after `attempt` failed: exponential, with jitter."""
        state = RetryCallState(retry_object=Retrying(), fn=None, args=(), kwargs={})
        state.attempt_number = attempt
        return float(self._backoff(state))

    async def _alert(self, task_id: uuid.UUID, attempts: int, error: str) -> None:
        """The operator alert for a failed job: always a CRITICAL log; a webhook POST too."""
        log.critical(
            "deletion job failed: the user's data is not deleted",
            extra={"task_id": str(task_id), "attempts": attempts, "error": error},
        )
        url = self._settings.alert_webhook_url
        if url is None:
            return
        alert = {
            "event": "deletion_job_failed",
            "task_id": str(task_id),
            "attempts": attempts,
            "error": error,
        }
        try:
            async with httpx.AsyncClient(timeout=ALERT_TIMEOUT_S) as client:
                async for attempt in AsyncRetrying(
                    stop=stop_after_attempt(ALERT_TRIES),
                    wait=wait_exponential_jitter(multiplier=0.2, max=2.0),
                    reraise=True,
                ):
                    with attempt:
                        response = await client.post(str(url), json=alert)
                        response.raise_for_status()
        except httpx.HTTPError as exc:
            log.error(
                "operator alert could not be delivered",
                extra={"task_id": str(task_id), "error": type(exc).__name__},
            )

    async def purge(self) -> Purged:
        """One batch of each purge. Safe from several workers at once."""
        now = utcnow()
        grace = timedelta(seconds=self._settings.refresh_grace_s)
        async with unit_of_work(self._sessions) as session:
            records = await commands.purge_expired_idempotency(session, now, PURGE_BATCH)
        async with unit_of_work(self._sessions) as session:
            expired = await sessions.purge_expired(session, now - grace, PURGE_BATCH)
        folders = await self._purge_withdrawn_audio()
        purged = Purged(records, expired, folders)
        if records or expired or folders:
            log.info("purged", extra={"purged": asdict(purged)})
        return purged

    async def _purge_withdrawn_audio(self) -> int:
        """Recordings of users whose audio_retention consent is not (or no longer) granted."""
        storage = self._settings.storage_dir
        owners = await asyncio.to_thread(audio_owners, storage, PURGE_BATCH)
        removed = 0
        for owner in owners:
            try:
                user_id = uuid.UUID(owner)
            except ValueError:
                continue  # not a folder this service made
            async with unit_of_work(self._sessions) as session:
                kept = await consent.is_granted(session, user_id, consent.AUDIO_RETENTION)
            if not kept:
                await asyncio.to_thread(self._remove_objects, storage, owner)
                removed += 1
        return removed


class _Overtaken(Exception):
    """This attempt's lease expired and another attempt took the job."""
