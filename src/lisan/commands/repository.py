"""Queries on idempotency_records, as Core statements built once: they run on every command."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, delete, select, tuple_, update

from lisan.commands.models import DONE, RUNNING, IdempotencyRecord
from lisan.db.database import table_of
from lisan.db.handle import Db, PerDialect

_RECORDS = table_of(IdempotencyRecord)
# Named apart from the columns: an UPDATE reserves the column names for its SET values.
_THIS_KEY = (_RECORDS.c.user_id == bindparam("of_user")) & (_RECORDS.c.key == bindparam("of_key"))

# A new record unless (user, key) has one, a concurrent twin's included: no error, no row back.
_INSERT_IF_ABSENT = PerDialect(
    lambda insert: (
        insert(_RECORDS)
        .on_conflict_do_nothing(index_elements=[_RECORDS.c.user_id, _RECORDS.c.key])
        .returning(_RECORDS.c.key)
    )
)
_SELECT = (
    select(
        _RECORDS.c.body_hash,
        _RECORDS.c.state,
        _RECORDS.c.lease_until,
        _RECORDS.c.expires_at,
        _RECORDS.c.response_status,
        _RECORDS.c.response_body,
    )
    .where(_THIS_KEY)
    .with_for_update()
)
# Only while the caller owns the key: one that lost it to a takeover changes nothing.
_OWNED_BY = _RECORDS.c.owner == bindparam("of_owner")
_TAKE_OVER = (
    update(_RECORDS)
    .where(_THIS_KEY)
    .values(owner=bindparam("new_owner"), lease_until=bindparam("new_lease"))
)
_FINISH = (
    update(_RECORDS)
    .where(_THIS_KEY, _OWNED_BY, _RECORDS.c.state == RUNNING)
    .values(
        state=DONE,
        response_status=bindparam("status"),
        response_body=bindparam("body"),
    )
)
_REMOVE = delete(_RECORDS).where(_THIS_KEY)
_REMOVE_RUNNING = delete(_RECORDS).where(_THIS_KEY, _OWNED_BY, _RECORDS.c.state == RUNNING)


@dataclass(frozen=True, slots=True)
class StoredKey:
    body_hash: bytes
    state: str
    lease_until: datetime
    expires_at: datetime
    response_status: int | None
    response_body: bytes | None


def _key(user_id: uuid.UUID, key: uuid.UUID) -> dict[str, Any]:
    return {"of_user": user_id, "of_key": key}


async def insert_record_if_absent(db: Db, row: dict[str, Any]) -> bool:
    """True when `row` was inserted; False when (user, key) already had a record."""
    result = await db.execute(_INSERT_IF_ABSENT.on(db), row)
    return result.first() is not None


async def get_record(db: Db, *, user_id: uuid.UUID, key: uuid.UUID) -> StoredKey | None:
    """The record of (user, key), locked until the transaction ends (PostgreSQL)."""
    row = (await db.execute(_SELECT, _key(user_id, key))).first()
    return None if row is None else StoredKey(*row)


async def update_record_owner(
    db: Db, *, user_id: uuid.UUID, key: uuid.UUID, owner: uuid.UUID, lease_until: datetime
) -> None:
    """Give the record to a new owner, under a new lease (its last owner is taken for dead)."""
    params = {**_key(user_id, key), "new_owner": owner, "new_lease": lease_until}
    await db.execute(_TAKE_OVER, params)


async def update_record_finished(
    db: Db,
    *,
    user_id: uuid.UUID,
    key: uuid.UUID,
    owner: uuid.UUID,
    status: int,
    body: bytes,
) -> bool:
    """Store the final response if `owner` still holds the key; a record removed meanwhile
    (expired) stays removed. True when stored."""
    params = {**_key(user_id, key), "of_owner": owner, "status": status, "body": body}
    result = await db.execute(_FINISH, params)
    return bool(result.rowcount)


async def delete_record(db: Db, *, user_id: uuid.UUID, key: uuid.UUID) -> None:
    await db.execute(_REMOVE, _key(user_id, key))


async def delete_running_record(
    db: Db, *, user_id: uuid.UUID, key: uuid.UUID, owner: uuid.UUID
) -> None:
    """Remove the record while `owner` still runs under it; one taken over stays."""
    await db.execute(_REMOVE_RUNNING, {**_key(user_id, key), "of_owner": owner})


async def purge_expired_records(db: Db, *, now: datetime, limit: int) -> int:
    """Delete up to `limit` idempotency records past their expiry (24 h); the count deleted.

    One statement, whose DELETE re-checks the expiry of each row it removes: a key reclaimed
    by a retry (deleted and inserted anew, or its expiry renewed) after the batch was chosen
    is a row the DELETE finds unexpired (PostgreSQL re-reads a row a concurrent transaction
    changed before deleting it), so it is kept, and the retry is not run twice. Safe from
    several workers at once: a row another deleted first is simply not counted."""
    expired = IdempotencyRecord.expires_at < now
    batch = select(IdempotencyRecord.user_id, IdempotencyRecord.key).where(expired).limit(limit)
    deleted = await db.execute(
        delete(_RECORDS).where(
            tuple_(IdempotencyRecord.user_id, IdempotencyRecord.key).in_(batch), expired
        )
    )
    return deleted.rowcount
