from __future__ import annotations

import uuid

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.commands.models import IdempotencyRecord


async def record_for(
    session: AsyncSession, user_id: uuid.UUID, key: uuid.UUID
) -> IdempotencyRecord | None:
    result = await session.execute(
        select(IdempotencyRecord)
        .where(IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == key)
        .with_for_update()
    )
    return result.scalar_one_or_none()


async def add(session: AsyncSession, record: IdempotencyRecord) -> None:
    session.add(record)
    await session.flush()


async def remove_running(session: AsyncSession, user_id: uuid.UUID, key: uuid.UUID) -> None:
    await session.execute(
        delete(IdempotencyRecord).where(
            IdempotencyRecord.user_id == user_id,
            IdempotencyRecord.key == key,
            IdempotencyRecord.state == "running",
        )
    )
