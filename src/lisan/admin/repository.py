from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Row, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.admin.models import AdminCredential, AuditEvent
from lisan.db.database import rowcount
from lisan.db.lookups import Lookups

_CREDENTIAL_BY_HASH = select(
    AdminCredential.id, AdminCredential.name, AdminCredential.permissions
).where(AdminCredential.revoked_at.is_(None), AdminCredential.token_hash == bindparam("token_hash"))


async def get_live_credential_by_hash(lookups: Lookups, token_hash: bytes) -> Row[Any] | None:
    return await lookups.first(_CREDENTIAL_BY_HASH, {"token_hash": token_hash})


async def get_live_credential_by_name(session: AsyncSession, name: str) -> AdminCredential | None:
    result = await session.execute(
        select(AdminCredential).where(
            AdminCredential.name == name, AdminCredential.revoked_at.is_(None)
        )
    )
    return result.scalar_one_or_none()


async def insert_credential(session: AsyncSession, credential: AdminCredential) -> None:
    session.add(credential)
    await session.flush()


async def update_credential_revoked(session: AsyncSession, *, name: str, now: datetime) -> bool:
    """Revoke the live credential of that name; False when there is none."""
    result = await session.execute(
        update(AdminCredential)
        .where(AdminCredential.name == name, AdminCredential.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(rowcount(result))


async def insert_audit_event(session: AsyncSession, event: AuditEvent) -> None:
    session.add(event)
    await session.flush()
