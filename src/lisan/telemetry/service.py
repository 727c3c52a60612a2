"""Command events, from the server's side: the command route records each command here."""

from __future__ import annotations

import uuid

from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.telemetry import repository


async def command_id_taken(db: Db, *, command_id: uuid.UUID, user_id: uuid.UUID) -> bool:
    """Whether `command_id` already names another command's event: a client that reuses an
    X-Request-ID would otherwise overwrite its own earlier record (and audio)."""
    return await repository.exists_taken_command_id(db, command_id=command_id, user_id=user_id)


async def record_command(
    db: Db,
    *,
    command_id: uuid.UUID,
    user_id: uuid.UUID,
    status: str,
    server_timings: dict[str, int],
) -> None:
    """The server's side of a command event (status and stage timings, never the transcript
    or the audio). If the phone's report came first, its row is completed; a row of another
    user under the same id is left alone."""
    await repository.upsert_server_side(
        db,
        {
            "id": command_id,
            "user_id": user_id,
            "created_at": utcnow(),
            "status": status,
            "server_timings": server_timings,
        },
    )
