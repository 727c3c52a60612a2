"""Carrying out one deletion job.

A job is claimed with a lease and counted as one more attempt at the claim itself, so a worker
that dies mid-job leaves it to be claimed again once the lease expires, and every attempt
counts however it ended. Whether a job is due is asked first with a plain read: an idle worker
takes no lock (on SQLite, not the write lock).

A job's steps: remove the user's storage objects, then delete the user row (every table that
references it cascades) and mark the job completed, clearing `user_id` on it and on every other
job of that user. Each step is safe to repeat, and each is bounded at a third of the lease, so
an attempt ends before its lease does. A removal that outlives its bound raises TimeoutError and
the attempt fails: it never goes on to complete the job while that removal may still be running
in its thread (a thread cannot be stopped; see recordings.filework: the worker's later removals
queue behind it and time out too, and a job is completed only after a removal of its own
returned). A stuck removal can only go on unlinking the user's files, never write one.

A failing step puts the job back as `retrying`, due after an exponential backoff with jitter
(tenacity's `wait_exponential_jitter`, from LISAN_DELETION_BACKOFF_S). A job whose attempts
reach LISAN_DELETION_MAX_ATTEMPTS is `failed`, with its operator alert queued in the same
transaction (deletion.alerts): when its last attempt failed, and when a claim finds it running
under an expired lease with no attempt left (its workers died, however often). `last_error` is
the exception's type only: its text may name the user's folder.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import uuid
from datetime import timedelta
from enum import StrEnum
from functools import partial

from tenacity import RetryCallState, Retrying, wait_exponential_jitter

from lisan.core import metrics
from lisan.core.settings import Settings
from lisan.db.store import Database
from lisan.db.types import utcnow
from lisan.deletion import repository
from lisan.deletion.models import JobStatus
from lisan.recordings.filework import FileWork
from lisan.recordings.store import RemoveRecordings
from lisan.users import service as users

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 3600.0
STEPS_PER_LEASE = 3  # two steps, each bounded at a third of the lease, end before it does
WORKER_LOST = "WorkerLost"  # the error of a job whose every attempt's worker died


class Attempt(StrEnum):
    """How a job's attempt ended: the `outcome` of lisan_deletion_attempts_total."""

    COMPLETED = "completed"
    RETRY = "retry"  # failed, to be tried again
    FAILED = "failed"  # failed, out of attempts: the job fails and the operator is alerted


# The deletion metrics' label values, declared by the jobs that take them.
metrics.DELETION_STATES.declare(JobStatus)
metrics.DELETION_OUTCOMES.declare(Attempt)


class Jobs:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        *,
        lease_s: float,
        files: FileWork,
        remove_objects: RemoveRecordings,
    ) -> None:
        self._settings = settings
        self._database = database
        self._lease = timedelta(seconds=lease_s)
        self._step_s = step_bound_s(lease_s)
        self._files = files
        self._remove_objects = remove_objects
        self._backoff = wait_exponential_jitter(
            multiplier=settings.deletion_backoff_s,
            max=MAX_BACKOFF_S,
            jitter=settings.deletion_backoff_s,
        )

    async def count(self) -> None:
        """Jobs by state and the age of the oldest unfinished one, for the metrics."""
        async with self._database.read_transaction() as db:
            by_state = await repository.count_jobs_by_status(db)
            oldest = await repository.get_oldest_in_flight_time(db)
        for state in JobStatus:
            metrics.labelled(metrics.DELETION_JOBS, state.value).set(by_state.get(state.value, 0))
        age_s = 0.0 if oldest is None else (utcnow() - oldest).total_seconds()
        metrics.DELETION_OLDEST_QUEUED.set(max(0.0, age_s))

    async def run_one(self) -> bool:
        """Claim one due job and carry it out; False when none was due."""
        async with self._database.read_transaction() as db:
            if not await repository.exists_due_job(db, utcnow()):
                return False
        async with self._database.transaction() as db:
            job = await repository.get_next_due_job(db, utcnow())
            if job is None:  # another worker claimed it first
                return False
            spent = job.status == JobStatus.RUNNING and (
                job.attempts >= self._settings.deletion_max_attempts
            )
            claim: dict[str, object]
            if spent:  # its last attempt's worker died: fail it, with its alert queued
                claim = {
                    "status": JobStatus.FAILED,
                    "lease_until": None,
                    "last_error": WORKER_LOST,
                    "alert_pending": True,
                }
            else:
                lease_until = utcnow() + self._lease
                claim = {
                    "status": JobStatus.RUNNING,
                    "lease_until": lease_until,
                    "attempts": job.attempts + 1,
                }
            await repository.update_job(db, job.id, claim)
            task_id, user_id = job.id, job.user_id
            attempt = job.attempts if spent else job.attempts + 1
        if spent:
            log.error(
                "deletion job out of attempts, its workers died", extra=_fields(task_id, attempt)
            )
            return True
        try:
            await self._carry_out(task_id=task_id, user_id=user_id, attempt=attempt)
        except Exception as exc:  # any failing step: a retry or a failure
            await self._failed_attempt(task_id=task_id, attempt=attempt, exc=exc)
        return True

    async def _carry_out(
        self, *, task_id: uuid.UUID, user_id: uuid.UUID | None, attempt: int
    ) -> None:
        if user_id is not None:
            remove = partial(self._remove_objects, self._settings.storage_dir, str(user_id))
            await self._files.run(remove)
        async with asyncio.timeout(self._step_s), self._database.transaction() as db:
            if user_id is not None:
                await users.remove_account(db, user_id)
            done = await repository.update_job_attempt(
                db,
                task_id=task_id,
                attempt=attempt,
                values={
                    "status": JobStatus.COMPLETED,
                    "completed_at": utcnow(),
                    "user_id": None,  # nothing about the user outlives them
                    "lease_until": None,
                    "last_error": None,
                },
            )
            if not done:  # overtaken after our lease expired: the newer attempt decides
                raise _Overtaken
            if user_id is not None:  # nor does a failed job of theirs name them
                await repository.update_jobs_forget_user(db, user_id)
        metrics.labelled(metrics.DELETION_ATTEMPTS, Attempt.COMPLETED).inc()
        log.info("deletion job completed", extra=_fields(task_id, attempt))

    async def _failed_attempt(self, *, task_id: uuid.UUID, attempt: int, exc: Exception) -> None:
        if isinstance(exc, _Overtaken):
            return
        values: dict[str, object] = {"lease_until": None, "last_error": safe_error(exc)}
        final = attempt >= self._settings.deletion_max_attempts
        if final:  # the alert is queued with the failure, in one transaction
            values.update(status=JobStatus.FAILED, alert_pending=True)
        else:
            values["status"] = JobStatus.RETRYING
            values["run_after"] = utcnow() + timedelta(seconds=self.backoff_s(attempt))
        async with self._database.transaction() as db:
            if not await repository.update_job_attempt(
                db, task_id=task_id, attempt=attempt, values=values
            ):
                return
        metrics.labelled(
            metrics.DELETION_ATTEMPTS, Attempt.FAILED if final else Attempt.RETRY
        ).inc()
        fields = {**_fields(task_id, attempt), "error": values["last_error"]}
        if final:
            log.error("deletion job out of attempts", extra=fields)
        else:
            log.warning("deletion job will be retried", extra=fields)

    def backoff_s(self, attempt: int) -> float:
        """Seconds before the next attempt after `attempt` failed: exponential, with jitter."""
        state = RetryCallState(retry_object=Retrying(), fn=None, args=(), kwargs={})
        state.attempt_number = attempt
        return float(self._backoff(state))


def step_bound_s(lease_s: float) -> float:
    """How long one step of an attempt may take (the file work's bound too)."""
    return lease_s / STEPS_PER_LEASE


def safe_error(exc: BaseException) -> str:
    """What may be kept of an error: its type, and an OSError's errno name (fixed texts, where
    the message could name a path, hence a user's id)."""
    name = type(exc).__name__
    code = errno.errorcode.get(exc.errno) if isinstance(exc, OSError) and exc.errno else None
    return f"{name} ({code})" if code else name


def _fields(task_id: uuid.UUID, attempt: int) -> dict[str, object]:
    return {"task_id": str(task_id), "attempt": attempt}


class _Overtaken(Exception):
    """This attempt's lease expired and another attempt took the job."""
