"""Queries on app_grants. Every read goes through ix_app_grants_user_package
(user_id, package_name, id): the latest row per package is the max id within (user, package)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Sequence
from typing import Any

from sqlalchemy import Row, bindparam, func, select

from lisan.db.handle import Db, insert_record
from lisan.grants.models import AppGrant

_OF_USER = AppGrant.user_id == bindparam("user_id")

# The id of the latest row of each package the user has decided on.
_LATEST_IDS = select(func.max(AppGrant.id)).where(_OF_USER).group_by(AppGrant.package_name)

_LATEST_STATES = select(AppGrant.package_name, AppGrant.granted, AppGrant.created_at).where(
    AppGrant.id.in_(_LATEST_IDS)
)

# Built once, with bind parameters: this runs on every command. Public so a test can read its
# plan (it must stay an index search on ix_app_grants_user_package, never a table scan).
GRANTED_AMONG = select(AppGrant.package_name).where(
    AppGrant.id.in_(
        _LATEST_IDS.where(AppGrant.package_name.in_(bindparam("packages", expanding=True)))
    ),
    AppGrant.granted.is_(True),
)

# Every package the user grants now: the command's planner may open any of them.
GRANTED = select(AppGrant.package_name).where(
    AppGrant.id.in_(_LATEST_IDS), AppGrant.granted.is_(True)
)


async def insert_grant(db: Db, grant: AppGrant) -> None:
    await insert_record(db, grant)


async def list_latest_states(db: Db, user_id: uuid.UUID) -> Sequence[Row[Any]]:
    """(package_name, granted, created_at) of the latest row per package, in no order."""
    rows: Sequence[Row[Any]] = (await db.execute(_LATEST_STATES, {"user_id": user_id})).all()
    return rows


async def list_granted_among(db: Db, user_id: uuid.UUID, packages: Collection[str]) -> set[str]:
    result = await db.execute(GRANTED_AMONG, {"user_id": user_id, "packages": list(packages)})
    return set(result.scalars())


async def list_granted(db: Db, user_id: uuid.UUID) -> list[str]:
    result = await db.execute(GRANTED, {"user_id": user_id})
    return sorted(result.scalars())
