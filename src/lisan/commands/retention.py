"""How long the commands domain keeps what it stores: the purge of idempotency records past
their 24 h, the task the background worker runs for this domain."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from lisan.commands import repository
from lisan.core.types import utcnow


async def purge_expired_idempotency(session: AsyncSession, limit: int) -> int:
    """Delete up to `limit` idempotency records whose retention has ended; the count deleted.
    A key a retry reclaims meanwhile is never among them (see the repository)."""
    return await repository.purge_expired_idempotency(session, utcnow(), limit)
