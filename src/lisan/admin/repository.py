from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Row, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession

from lisan.admin.models import AdminCredential, AuditEvent

_CREDENTIAL_BY_HASH = select(
    AdminCredential.id, AdminCredential.name, AdminCredential.permissions
).where(AdminCredential.revoked_at.is_(None), AdminCredential.token_hash == bindparam("token_hash"))


async def live_credential_by_hash(
    engine: AsyncEngine, token_hash: bytes
) -> Row[uuid.UUID, str, str] | None:
    async with engine.connect() as connection:
        result = await connection.execute(_CREDENTIAL_BY_HASH, {"token_hash": token_hash})
        return result.first()


async def live_credential_by_name(session: AsyncSession, name: str) -> AdminCredential | None:
    result = await session.execute(
        select(AdminCredential).where(
            AdminCredential.name == name, AdminCredential.revoked_at.is_(None)
        )
    )
    return result.scalar_one_or_none()


async def add_credential(session: AsyncSession, credential: AdminCredential) -> None:
    session.add(credential)
    await session.flush()


async def revoke_credential(session: AsyncSession, name: str, now: datetime) -> bool:
    result = await session.execute(
        update(AdminCredential)
        .where(AdminCredential.name == name, AdminCredential.revoked_at.is_(None))
        .values(revoked_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


async def add_audit_event(session: AsyncSession, event: AuditEvent) -> None:
    session.add(event)
    await session.flush()
