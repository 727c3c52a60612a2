"""Queries on consent_grants: append a decision, read the latest one of a scope."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from sqlalchemy import bindparam, func, select

from lisan.consent.models import ConsentGrant
from lisan.db.database import table_of
from lisan.db.handle import Db, as_record, insert_record

# The latest row of (user, scope) by sequence, served by ix_consent_grants_user_scope
# (user_id, scope, id) as one backward index probe. Built once: it is on the command path.
_OF_SCOPE = (ConsentGrant.user_id == bindparam("user_id")) & (
    ConsentGrant.scope == bindparam("scope")
)
_LATEST = select(table_of(ConsentGrant)).where(_OF_SCOPE).order_by(ConsentGrant.id.desc()).limit(1)
# The same probe for its decision only (no entity to load): it runs on every command.
_LATEST_DECISION = _LATEST.with_only_columns(ConsentGrant.granted)


async def insert_grant(db: Db, grant: ConsentGrant) -> None:
    await insert_record(db, grant)


async def get_latest_grant(db: Db, user_id: uuid.UUID, scope: str) -> ConsentGrant | None:
    row = (await db.execute(_LATEST, {"user_id": user_id, "scope": scope})).first()
    return None if row is None else as_record(ConsentGrant, row)


async def get_latest_decision(db: Db, user_id: uuid.UUID, scope: str) -> bool | None:
    """Whether the latest decision on `scope` grants it; None when there is none."""
    result = await db.execute(_LATEST_DECISION, {"user_id": user_id, "scope": scope})
    return result.scalar_one_or_none()


async def list_granting_users(
    db: Db, user_ids: Collection[uuid.UUID], scope: str
) -> set[uuid.UUID]:
    """Those of `user_ids` whose latest decision on `scope` grants it, in one query (each
    user's latest row found on ix_consent_grants_user_scope)."""
    if not user_ids:
        return set()
    latest = (
        select(func.max(ConsentGrant.id))
        .where(ConsentGrant.user_id.in_(user_ids), ConsentGrant.scope == scope)
        .group_by(ConsentGrant.user_id)
    )
    granting = select(ConsentGrant.user_id).where(
        ConsentGrant.id.in_(latest), ConsentGrant.granted.is_(True)
    )
    return set((await db.execute(granting)).scalars())
