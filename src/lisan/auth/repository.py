from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.auth.models import DeviceSession
from lisan.db.database import rowcount, table_of
from lisan.db.lookups import Lookups
from lisan.users.repository import with_account

_table = table_of(DeviceSession)

# Built once, with a bind parameter, so no statement is constructed (or cache key computed)
# per request: this is the hot path of every user request.
_PRINCIPAL_BY_HASH = with_account(
    select(
        DeviceSession.id,
        DeviceSession.user_id,
        DeviceSession.install_id,
        DeviceSession.expires_at,
        DeviceSession.revoked_at,
    ),
    _table,
    DeviceSession.user_id,
).where(DeviceSession.token_hash == bindparam("token_hash"))


async def get_principal_by_hash(lookups: Lookups, token_hash: bytes) -> Row[Any] | None:
    """The session and its account in one query, outside any unit of work (none is held open
    while the request runs)."""
    return await lookups.first(_PRINCIPAL_BY_HASH, {"token_hash": token_hash})


async def insert_session(
    session: AsyncSession,
    *,
    user_id: uuid.UUID,
    install_id: str,
    token_hash: bytes,
    created_at: datetime,
    expires_at: datetime,
) -> None:
    session.add(
        DeviceSession(
            id=uuid.uuid4(),
            user_id=user_id,
            install_id=install_id,
            token_hash=token_hash,
            created_at=created_at,
            expires_at=expires_at,
        )
    )
    await session.flush()


async def update_session_revoked(
    session: AsyncSession, *, session_id: uuid.UUID, now: datetime
) -> bool:
    """Revoke a live session; False when it was already revoked (so of two racing refreshes,
    exactly one wins: the row lock, or SQLite's write lock, orders them)."""
    result = await session.execute(
        update(DeviceSession)
        .where(DeviceSession.id == session_id, DeviceSession.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(rowcount(result))


async def purge_expired_sessions(session: AsyncSession, *, cutoff: datetime, limit: int) -> int:
    """Delete up to `limit` sessions that expired before `cutoff` (their expiry plus the
    refresh grace: not even a refresh can use them); the count deleted. One statement whose
    DELETE re-checks the expiry of each row it removes, as the idempotency purge does (a
    session's expiry is never extended today; this keeps the purge right if it ever is)."""
    expired = DeviceSession.expires_at < cutoff
    batch = select(DeviceSession.id).where(expired).limit(limit)
    deleted = await session.execute(
        delete(DeviceSession)
        .where(DeviceSession.id.in_(batch), expired)
        .execution_options(synchronize_session=False)
    )
    return rowcount(deleted)
