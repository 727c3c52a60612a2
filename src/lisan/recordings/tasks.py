"""The recordings' background task: the purge of recordings nobody may keep, those of users
whose audio_retention consent is not granted (withdrawn, or never given) and of users who are
gone.

It walks every owner's folder, a batch at a time, each batch resuming where the last one
stopped, and starts a new walk once one has reached the end: every folder is looked at in every
walk, however many there are (a listing cut at its first N folders would look at the same N
forever once they all belong to users who consented). Who consents is read from the database,
one query a batch, on a read session; a folder that read condemns is then removed only inside a
write transaction that holds its owner's account exclusively (the hold a command keeping a
recording waits for) and finds the consent still not granted: a consent granted between the
read and the removal keeps the recording a command stored since. A folder whose removal fails
is logged and left to the next walk; it never stops the walk short of the folders after it. A
storage that hangs (a file call past its bound) ends the batch, which the next call takes again.
"""

from __future__ import annotations

import itertools
import logging
import uuid
from collections.abc import Generator, Iterator
from functools import partial

from lisan.consent import service as consent
from lisan.core.settings import Settings
from lisan.core.tasks import Batch
from lisan.db.store import Database
from lisan.recordings.filework import FileWork
from lisan.recordings.store import RemoveRecordings, audio_owners
from lisan.users import service as users

log = logging.getLogger(__name__)


def _next_batch(walk: Iterator[str], size: int) -> list[str]:
    return list(itertools.islice(walk, size))


class WithdrawnAudioPurge:
    """One worker's walk over the recordings' folders; each call takes the next batch. `more`
    of a batch: the walk has folders left (False: it reached the end)."""

    def __init__(
        self,
        *,
        settings: Settings,
        database: Database,
        files: FileWork,
        remove: RemoveRecordings,
    ) -> None:
        self._storage_dir = settings.storage_dir
        self._database = database
        self._files = files
        self._remove = remove
        self._walk: Generator[str, None, None] | None = None
        self._batch: list[str] = []  # read from the walk and not yet dealt with

    async def __call__(self, *, limit: int) -> Batch:
        """The next `limit` folders of the walk: those whose owner may not keep them are removed.
        A batch that fails (the database down) is taken again by the next call."""
        if not self._batch:
            walk = self._walk or audio_owners(self._storage_dir)
            self._walk = None  # while the file thread reads it; put back once it returned
            self._batch = await self._files.run(partial(_next_batch, walk, limit))
            if len(self._batch) == limit:
                self._walk = walk
            # else the walk reached its end (and closed the directory): the next starts anew
        more = self._walk is not None
        owners = {name: _user_id(name) for name in self._batch}
        user_ids = {user_id for user_id in owners.values() if user_id is not None}
        async with self._database.read_transaction() as db:
            keeping = await consent.granted_among(
                db, user_ids=user_ids, scope=consent.AUDIO_RETENTION
            )
        removed = 0
        for name, user_id in owners.items():
            if user_id is None or user_id in keeping:
                continue  # not a folder this service made, or its owner consents
            try:
                removed_now = await self._remove_unless_kept(name, user_id)
            except TimeoutError:  # the storage hangs: the batch is taken again next time
                raise
            except Exception as exc:  # one folder that cannot go never stops the walk
                log.error("recordings not removed", extra={"error": type(exc).__name__})
            else:
                removed += removed_now
        self._batch = []
        return Batch(removed, more)

    async def _remove_unless_kept(self, name: str, user_id: uuid.UUID) -> int:
        """Remove the owner's folder, in a write transaction that holds the account exclusively,
        unless the consent was granted since the batch's read; 1 when removed."""
        async with self._database.transaction() as db:
            await users.hold_account_exclusively(db, user_id)
            if await consent.is_granted(db, user_id, consent.AUDIO_RETENTION):
                return 0
            await self._files.run(partial(self._remove, self._storage_dir, name))
        return 1

    def close(self) -> None:
        """Release the directory of a walk under way (the file thread is idle by then)."""
        if self._walk is not None:
            self._walk.close()
            self._walk = None


def _user_id(name: str) -> uuid.UUID | None:
    """The owner a folder's name gives, when it is a name this service makes."""
    try:
        user_id = uuid.UUID(name)
    except ValueError:
        return None
    return user_id if str(user_id) == name else None
