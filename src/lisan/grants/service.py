"""Per-app control grants: append-only decisions per (user, package); the latest row is the
state, and an app with no row is not granted."""

from __future__ import annotations

import uuid
from collections.abc import Collection

from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.grants import repository
from lisan.grants.models import AppGrant
from lisan.grants.schemas import AppGrantList, AppGrantRecorded, AppGrantRequest


async def record(db: Db, user_id: uuid.UUID, request: AppGrantRequest) -> AppGrantRecorded:
    """Append the decision; revoking is a row with `granted` false, never an update."""
    grant = AppGrant(
        user_id=user_id,
        package_name=request.package_name,
        granted=request.granted,
        created_at=utcnow(),
    )
    await repository.insert_grant(db, grant)
    return AppGrantRecorded(package_name=grant.package_name, granted=grant.granted)


async def list_states(db: Db, user_id: uuid.UUID) -> AppGrantList:
    """Every app the user has decided on, revoked ones included, by package name."""
    # Sorted here, by code point: a database's collation would order names differently on
    # SQLite and PostgreSQL.
    rows = sorted(await repository.list_latest_states(db, user_id), key=lambda r: r.package_name)
    # Validated in one call, by the columns' names (as a user's vocabulary is).
    return AppGrantList.model_validate({"grants": rows}, from_attributes=True)


async def granted_packages(db: Db, user_id: uuid.UUID, packages: Collection[str]) -> set[str]:
    """Which of `packages` the user currently grants, in one indexed query."""
    if not packages:
        return set()
    return await repository.list_granted_among(db, user_id, packages)


async def granted_apps(db: Db, user_id: uuid.UUID) -> list[str]:
    """Every package the user currently grants, by name, in one indexed query."""
    return await repository.list_granted(db, user_id)
