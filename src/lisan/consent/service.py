"""Consent records: append-only decisions per (user, scope); the latest row is the state."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from lisan.consent import repository
from lisan.consent.models import ConsentGrant
from lisan.consent.schemas import ConsentGrantRecorded, ConsentGrantRequest, ConsentState
from lisan.db.handle import Db
from lisan.db.types import utcnow

# The scope that lets the command pipeline keep a command's audio.
AUDIO_RETENTION = "audio_retention"


async def record(db: Db, user_id: uuid.UUID, request: ConsentGrantRequest) -> ConsentGrantRecorded:
    """Append the decision; revoking is a row with `granted` false, never an update."""
    grant = ConsentGrant(
        user_id=user_id, scope=request.scope, granted=request.granted, created_at=utcnow()
    )
    await repository.insert_grant(db, grant)
    return ConsentGrantRecorded(scope=grant.scope, granted=grant.granted)


async def current(db: Db, user_id: uuid.UUID, scope: str) -> ConsentState:
    latest = await repository.get_latest_grant(db, user_id, scope)
    if latest is None:  # never decided: not granted
        return ConsentState(scope=scope, granted=False, created_at=None)
    return ConsentState(scope=scope, granted=latest.granted, created_at=latest.created_at)


async def is_granted(db: Db, user_id: uuid.UUID, scope: str) -> bool:
    """Whether the user's latest decision on `scope` grants it (no decision: not granted)."""
    return await repository.get_latest_decision(db, user_id, scope) is True


async def granted_among(db: Db, user_ids: Collection[uuid.UUID], scope: str) -> set[uuid.UUID]:
    """Those of `user_ids` whose latest decision on `scope` grants it: `is_granted` for many
    users in one query (a user gone, or who never decided, is not among them)."""
    return await repository.list_granting_users(db, user_ids, scope)
