from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, select, update

from lisan.admin.models import AdminCredential, AuditEvent
from lisan.db.database import table_of
from lisan.db.handle import Db, insert_record

_CREDENTIAL_BY_HASH = select(
    AdminCredential.id, AdminCredential.name, AdminCredential.permissions
).where(AdminCredential.revoked_at.is_(None), AdminCredential.token_hash == bindparam("token_hash"))
_LIVE_NAMED = select(AdminCredential.id).where(
    AdminCredential.name == bindparam("name"), AdminCredential.revoked_at.is_(None)
)
_REVOKE_NAMED = (
    update(table_of(AdminCredential))
    .where(AdminCredential.name == bindparam("of_name"), AdminCredential.revoked_at.is_(None))
    .values(revoked_at=bindparam("now"))
)


async def get_live_credential_by_hash(db: Db, token_hash: bytes) -> Row[Any] | None:
    row: Row[Any] | None = (
        await db.execute(_CREDENTIAL_BY_HASH, {"token_hash": token_hash})
    ).first()
    return row


async def exists_live_credential_named(db: Db, name: str) -> bool:
    return (await db.execute(_LIVE_NAMED, {"name": name})).first() is not None


async def insert_credential(db: Db, credential: AdminCredential) -> None:
    await insert_record(db, credential)


async def update_credential_revoked(db: Db, *, name: str, now: datetime) -> bool:
    """Revoke the live credential of that name; False when there is none."""
    result = await db.execute(_REVOKE_NAMED, {"of_name": name, "now": now})
    return bool(result.rowcount)


async def insert_audit_event(db: Db, event: AuditEvent) -> None:
    await insert_record(db, event)
