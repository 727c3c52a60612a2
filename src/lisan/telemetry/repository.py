from __future__ import annotations

import uuid
from collections.abc import Callable, Collection, Sequence
from typing import Any

from sqlalchemy import bindparam, or_, select, update

from lisan.db.database import table_of
from lisan.db.handle import Db, PerDialect
from lisan.telemetry.models import CommandEvent

_EVENTS = table_of(CommandEvent)


def _upsert_server_side(insert: Callable[..., Any]) -> Any:
    """The server's side of an event: a new row, or the phone's row (same user) completed."""
    statement = insert(_EVENTS)
    return statement.on_conflict_do_update(
        index_elements=[_EVENTS.c.id],
        set_={
            "status": statement.excluded.status,
            "server_timings": statement.excluded.server_timings,
        },
        where=_EVENTS.c.user_id == statement.excluded.user_id,
    )


# A command event that another command already owns: the server's side is written, or the row
# is another user's (a phone's report under an id this user now reuses).
_ID_TAKEN = select(_EVENTS.c.id).where(
    _EVENTS.c.id == bindparam("command_id"),
    or_(_EVENTS.c.status.is_not(None), _EVENTS.c.user_id != bindparam("user_id")),
)
_INSERT_NEW = PerDialect(lambda insert: insert(_EVENTS).on_conflict_do_nothing())
# Built once, on the table rather than the entity: it runs on every command.
_UPSERT_SERVER_SIDE = PerDialect(_upsert_server_side)


async def list_owners(db: Db, ids: Collection[uuid.UUID]) -> dict[uuid.UUID, uuid.UUID]:
    """The owning user of each command event among `ids` that exists."""
    if not ids:
        return {}
    result = await db.execute(
        select(CommandEvent.id, CommandEvent.user_id).where(CommandEvent.id.in_(ids))
    )
    return {row.id: row.user_id for row in result}


async def insert_new_events(db: Db, rows: Sequence[dict[str, Any]]) -> None:
    """Insert rows (each with the same columns), in one batch; one whose id appeared meanwhile
    (a concurrent writer) is left alone."""
    if not rows:
        return
    await db.execute_many(_INSERT_NEW.on(db), rows)


async def update_phone_side(db: Db, rows: Sequence[dict[str, Any]]) -> None:
    """Fill in the phone's side of existing events, each only where its user owns the row."""
    for row in rows:
        await db.execute(
            update(_EVENTS)
            .where(CommandEvent.id == row["id"], CommandEvent.user_id == row["user_id"])
            .values({k: v for k, v in row.items() if k not in ("id", "user_id", "created_at")})
        )


async def upsert_server_side(db: Db, row: dict[str, Any]) -> None:
    await db.execute(_UPSERT_SERVER_SIDE.on(db), row)


async def exists_taken_command_id(db: Db, *, command_id: uuid.UUID, user_id: uuid.UUID) -> bool:
    result = await db.execute(_ID_TAKEN, {"command_id": command_id, "user_id": user_id})
    return result.first() is not None
