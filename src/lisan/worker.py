"""The background worker: a runner over deletion jobs, their operator alerts, and each
domain's purge, so tables and folders do not grow forever.

It runs inside `lisan serve` (unless LISAN_RUN_WORKER=false) and alone as `lisan worker`; any
number may run at once, in any processes. Each poll runs every due deletion job (deletion.jobs),
then sends every due operator alert (deletion.alerts). Now and then it runs one batch of each
purge, each a `tasks` module of its domain with the one shape of `core.tasks`: idempotency
records past their 24 h (commands.tasks), sessions past their expiry and grace (auth.tasks),
and recordings nobody may keep (recordings.tasks); while any batch comes back full, the next
batch follows at once instead of after the pause.

The worker schedules and nothing more: what each task does, and the rules it keeps, live with
its domain. With nothing due, a poll is plain reads in read transactions (on SQLite on the read
engine: `db.store`): an idle worker never takes the write lock.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import asdict, dataclass
from enum import StrEnum
from functools import partial

from lisan.auth import tasks as auth
from lisan.commands import tasks as commands
from lisan.core import metrics
from lisan.core.settings import Settings
from lisan.core.tasks import Batch, Purge
from lisan.db.database_trouble import DATABASE_UNAVAILABLE, DatabaseTrouble
from lisan.db.store import Database
from lisan.deletion.alerts import Alerts
from lisan.deletion.jobs import Jobs, step_bound_s
from lisan.recordings import tasks as recordings
from lisan.recordings.filework import FileWork
from lisan.recordings.store import RemoveRecordings, remove_audio

log = logging.getLogger(__name__)

LEASE_S = 300.0  # a job's steps take well under a second; a lease this long means a dead worker
PURGE_BATCH = 500  # rows (or folders) per purge batch: short transactions, small locks
PURGE_EVERY_S = 60.0
POLL_S = 1.0
MAX_FAULT_PAUSE_S = 30.0


class PurgeKind(StrEnum):
    """Each purge, by one name: its `Purged` field and its `kind` in lisan_purged_rows_total
    (declared to the metrics here, at import)."""

    IDEMPOTENCY_RECORDS = "idempotency_records"
    SESSIONS = "sessions"
    AUDIO_FOLDERS = "audio_folders"


metrics.PURGE_KINDS.declare(PurgeKind)


@dataclass(frozen=True, slots=True)
class Purged:
    idempotency_records: int
    sessions: int
    audio_folders: int
    more: bool  # a batch came back full: there is more to purge now


async def _one_batch(name: str, purge: Purge, limit: int) -> Batch:
    try:
        return await purge(limit=limit)
    except Exception as exc:  # logged; the next purge tries again
        log.error("purge failed", extra={"task": name, "error": type(exc).__name__})
        return Batch(0, more=False)


class Worker:
    def __init__(
        self,
        settings: Settings,
        database: Database,
        *,
        lease_s: float = LEASE_S,
        remove_objects: RemoveRecordings = remove_audio,
        purge_batch: int = PURGE_BATCH,
    ) -> None:
        self.database_trouble = DatabaseTrouble()  # the worker's own episodes, logged once each
        self._purge_batch = purge_batch
        self._files = FileWork(step_bound_s(lease_s))
        self._jobs = Jobs(
            settings,
            database,
            lease_s=lease_s,
            files=self._files,
            remove_objects=remove_objects,
        )
        self._alerts = Alerts(settings, database)
        self._recordings = recordings.WithdrawnAudioPurge(
            settings=settings,
            database=database,
            files=self._files,
            remove=remove_objects,
        )
        self._purges: dict[PurgeKind, Purge] = {
            PurgeKind.IDEMPOTENCY_RECORDS: partial(
                commands.purge, database=database, settings=settings
            ),
            PurgeKind.SESSIONS: partial(auth.purge, database=database, settings=settings),
            PurgeKind.AUDIO_FOLDERS: self._recordings,
        }

    async def run_forever(
        self, poll_s: float = POLL_S, purge_every_s: float = PURGE_EVERY_S
    ) -> None:
        """Until cancelled: every due job and alert, then the purges now and then. A fault (the
        database down) is logged and tried again at the next poll, never the end of the worker."""
        loop = asyncio.get_running_loop()
        next_purge = loop.time()
        pause = poll_s
        try:
            while True:
                more = False
                try:
                    await self.run_due()
                    if loop.time() >= next_purge:
                        more = (await self.purge()).more
                        next_purge = loop.time() + (0.0 if more else purge_every_s)
                    pause = poll_s
                except asyncio.CancelledError:
                    raise
                except Exception as exc:  # the worker outlives any one fault
                    if isinstance(exc, DATABASE_UNAVAILABLE):
                        # Logged as the routes log it, once per episode: an outage, or a process
                        # too busy to free a connection in time (under load every cycle met a
                        # pool wait and logged an ERROR while PostgreSQL was idle).
                        self.database_trouble.failed(exc)
                    else:
                        log.error("worker cycle failed", extra={"error": type(exc).__name__})
                    pause = min(pause * 2, MAX_FAULT_PAUSE_S)  # a database that is down: less noise
                await asyncio.sleep(0 if more else pause)
        finally:
            self.close()

    async def run_due(self) -> int:
        """Run every job that is due now, then send every alert that is due; how many jobs."""
        count = 0
        while await self.run_one():
            count += 1
        await self.send_alerts()
        return count

    async def run_one(self) -> bool:
        """Claim one due job and carry it out; False when none was due."""
        return await self._jobs.run_one()

    async def send_alerts(self) -> int:
        """Send the operator alerts of failed jobs still to be sent; how many went out."""
        return await self._alerts.send_due()

    def backoff_s(self, attempt: int) -> float:
        """Seconds before the next attempt after `attempt` failed: exponential, with jitter."""
        return self._jobs.backoff_s(attempt)

    async def purge(self) -> Purged:
        """One batch of each purge task, each on its own: one that fails (logged) keeps none of
        the others from running. Safe from several workers at once."""
        limit = self._purge_batch
        done = {name: await _one_batch(name, purge, limit) for name, purge in self._purges.items()}
        removed = {name: batch.removed for name, batch in done.items()}
        for name, count in removed.items():
            metrics.labelled(metrics.PURGED, name).inc(count)
        try:
            await self._jobs.count()
        except Exception as exc:  # the deletion gauges wait for the next purge
            log.error("counting deletion jobs failed", extra={"error": type(exc).__name__})
        purged = Purged(**removed, more=any(batch.more for batch in done.values()))
        if any(removed.values()):
            log.info("purged", extra={"purged": asdict(purged)})
        return purged

    def close(self) -> None:
        """Release what the worker holds: its walk over the recordings, its file thread."""
        self._recordings.close()
        self._files.close()
