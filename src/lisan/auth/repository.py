from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, delete, select, update

from lisan.auth.models import DeviceSession
from lisan.db.database import table_of
from lisan.db.handle import Db, insert_record
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


async def get_principal_by_hash(db: Db, token_hash: bytes) -> Row[Any] | None:
    """The session and its account in one query."""
    row: Row[Any] | None = (
        await db.execute(_PRINCIPAL_BY_HASH, {"token_hash": token_hash})
    ).first()
    return row


async def insert_session(
    db: Db,
    *,
    user_id: uuid.UUID,
    install_id: str,
    token_hash: bytes,
    created_at: datetime,
    expires_at: datetime,
) -> None:
    await insert_record(
        db,
        DeviceSession(
            id=uuid.uuid4(),
            user_id=user_id,
            install_id=install_id,
            token_hash=token_hash,
            created_at=created_at,
            expires_at=expires_at,
        ),
    )


async def update_session_revoked(db: Db, *, session_id: uuid.UUID, now: datetime) -> bool:
    """Revoke a live session; False when it was already revoked (so of two racing refreshes,
    exactly one wins: the row lock, or SQLite's write lock, orders them)."""
    result = await db.execute(
        update(_table)
        .where(DeviceSession.id == session_id, DeviceSession.revoked_at.is_(None))
        .values(revoked_at=now)
    )
    return bool(result.rowcount)


async def purge_expired_sessions(db: Db, *, cutoff: datetime, limit: int) -> int:
    """Delete up to `limit` sessions that expired before `cutoff` (their expiry plus the
    refresh grace: not even a refresh can use them); the count deleted. One statement whose
    DELETE re-checks the expiry of each row it removes, as the idempotency purge does (a
    session's expiry is never extended today; this keeps the purge right if it ever is)."""
    expired = DeviceSession.expires_at < cutoff
    batch = select(DeviceSession.id).where(expired).limit(limit)
    deleted = await db.execute(delete(_table).where(DeviceSession.id.in_(batch), expired))
    return deleted.rowcount
