"""The commands domain's background task: the purge of idempotency records past their 24 h."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from lisan.commands import repository
from lisan.core.settings import Settings
from lisan.core.tasks import Batch
from lisan.db.database import unit_of_work
from lisan.db.types import utcnow


async def purge(
    *, sessions: async_sessionmaker[AsyncSession], settings: Settings, limit: int
) -> Batch:
    """Delete up to `limit` idempotency records whose retention has ended, in a unit of work
    of its own. A key a retry reclaims meanwhile is never among them (see the repository)."""
    async with unit_of_work(sessions) as session:
        deleted = await repository.purge_expired_records(session, now=utcnow(), limit=limit)
    return Batch.of(deleted, limit=limit)
