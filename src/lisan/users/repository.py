"""Queries on the users table. Other domains see accounts only through what this module exposes."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, FromClause, Select, bindparam, delete, select, update
from sqlalchemy.orm import InstrumentedAttribute

from lisan.db.database import table_of
from lisan.db.handle import Db, as_record, insert_record
from lisan.users.models import User

_USERS = table_of(User)

# Built once: they run on a command's units of work (a raw connection compiles each once).
_STATUS_HELD = select(User.status).where(User.id == bindparam("user_id")).with_for_update(read=True)
_LOCKED = select(User.id).where(User.id == bindparam("user_id")).with_for_update()


async def insert_user(db: Db, user: User) -> None:
    await insert_record(db, user)


async def get_user_by_install_id(db: Db, install_id: str) -> User | None:
    row = (await db.execute(select(_USERS).where(User.install_id == install_id))).first()
    return None if row is None else as_record(User, row)


async def get_user(db: Db, user_id: uuid.UUID, *, for_update: bool = False) -> User | None:
    statement = select(_USERS).where(User.id == user_id)
    if for_update:
        statement = statement.with_for_update()
    row = (await db.execute(statement)).first()
    return None if row is None else as_record(User, row)


def with_account(
    statement: Select[*tuple[Any, ...]],
    source: FromClause,
    user_id: ColumnElement[uuid.UUID] | InstrumentedAttribute[uuid.UUID],
) -> Select[*tuple[Any, ...]]:
    """`statement` joined to the account of `user_id`, adding the columns a request's identity
    needs (so authentication costs one query)."""
    return statement.join_from(source, User, User.id == user_id).add_columns(
        User.status.label("account_status"),
        User.locale.label("account_locale"),
        User.speech_rate.label("account_speech_rate"),
        User.wake_word.label("account_wake_word"),
    )


async def get_status_held(db: Db, user_id: uuid.UUID) -> str | None:
    """The account's status with its row share-locked until the caller's transaction ends
    (PostgreSQL FOR SHARE; on SQLite the write transaction already admits one writer). None
    when the row is gone."""
    return (await db.execute(_STATUS_HELD, {"user_id": user_id})).scalar_one_or_none()


async def lock_account(db: Db, user_id: uuid.UUID) -> None:
    """The account's row locked for update until the caller's transaction ends (PostgreSQL FOR
    UPDATE: a FOR SHARE holder, such as a command keeping a recording, waits, and is waited
    for; on SQLite the write transaction already admits one writer). Nothing when it is gone."""
    await db.execute(_LOCKED, {"user_id": user_id})


async def update_user(db: Db, user_id: uuid.UUID, **values: object) -> None:
    """Set these columns of the account's row."""
    await db.execute(update(_USERS).where(User.id == user_id).values(**values))


async def delete_user(db: Db, user_id: uuid.UUID) -> None:
    """Delete the row; every table that references it cascades. Removing it twice is fine."""
    await db.execute(delete(_USERS).where(User.id == user_id))
