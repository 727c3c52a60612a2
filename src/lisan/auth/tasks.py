"""The auth domain's background task: the purge of sessions past any use."""

from __future__ import annotations

from datetime import timedelta

from lisan.auth import repository
from lisan.core.settings import Settings
from lisan.core.tasks import Batch
from lisan.db.store import Database
from lisan.db.types import utcnow


async def purge(*, database: Database, settings: Settings, limit: int) -> Batch:
    """Delete up to `limit` sessions expired longer ago than the refresh grace (not even a
    refresh can use them), in a unit of work of its own."""
    cutoff = utcnow() - timedelta(seconds=settings.refresh_grace_s)
    async with database.transaction() as db:
        deleted = await repository.purge_expired_sessions(db, cutoff=cutoff, limit=limit)
    return Batch.of(deleted, limit=limit)
