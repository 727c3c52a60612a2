from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.telemetry.models import CommandEvent


async def owners(session: AsyncSession, ids: Collection[uuid.UUID]) -> dict[uuid.UUID, uuid.UUID]:
    """The owning user of each command event among `ids` that exists."""
    if not ids:
        return {}
    result = await session.execute(
        select(CommandEvent.id, CommandEvent.user_id).where(CommandEvent.id.in_(ids))
    )
    return {row.id: row.user_id for row in result}


async def insert_new(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Insert rows; one whose id appeared meanwhile (a concurrent writer) is left alone."""
    if not rows:
        return
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    await session.execute(insert(CommandEvent).on_conflict_do_nothing(), rows)


async def complete(session: AsyncSession, rows: Sequence[dict[str, Any]]) -> None:
    """Fill in the phone's side of existing events, each only where its user owns the row."""
    for row in rows:
        await session.execute(
            update(CommandEvent)
            .where(CommandEvent.id == row["id"], CommandEvent.user_id == row["user_id"])
            .values({k: v for k, v in row.items() if k not in ("id", "user_id", "created_at")})
            .execution_options(synchronize_session=False)
        )


async def upsert_server_side(session: AsyncSession, row: dict[str, Any]) -> None:
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(CommandEvent).values(row)
    await session.execute(
        statement.on_conflict_do_update(
            index_elements=[CommandEvent.id],
            set_={
                "status": statement.excluded.status,
                "server_timings": statement.excluded.server_timings,
            },
            where=CommandEvent.user_id == statement.excluded.user_id,
        )
    )
