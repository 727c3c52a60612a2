"""The commands domain's background task: the purge of idempotency records past their 24 h."""

from __future__ import annotations

from lisan.commands import repository
from lisan.core.settings import Settings
from lisan.core.tasks import Batch
from lisan.db.store import Database
from lisan.db.types import utcnow


async def purge(*, database: Database, settings: Settings, limit: int) -> Batch:
    """Delete up to `limit` idempotency records whose retention has ended, in a unit of work
    of its own. A key a retry reclaims meanwhile is never among them (see the repository)."""
    async with database.transaction() as db:
        deleted = await repository.purge_expired_records(db, now=utcnow(), limit=limit)
    return Batch.of(deleted, limit=limit)
