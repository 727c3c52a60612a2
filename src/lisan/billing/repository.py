"""Queries on the subscription and billed-command tables."""

from __future__ import annotations

import uuid
from datetime import datetime

from sqlalchemy import Row, bindparam, delete, func, literal, select

from lisan.billing.models import BilledCommand, Subscription
from lisan.db.database import table_of
from lisan.db.handle import Db, PerDialect, insert_record

_BILLED = table_of(BilledCommand)
# Built once, on the table rather than the entity: it runs on every billed command.
_BILL_ONCE = PerDialect(
    lambda insert: insert(_BILLED).on_conflict_do_nothing(index_elements=[_BILLED.c.bill_id])
)
_UNBILL = delete(_BILLED).where(_BILLED.c.bill_id == bindparam("bill_id"))


async def insert_subscription(db: Db, subscription: Subscription) -> None:
    await insert_record(db, subscription)


# Built once: the entitlement reads them on every GET, on the raw read paths too.
_LATEST_SUBSCRIPTION = (
    select(Subscription.status, Subscription.renews_at, Subscription.command_quota)
    .where(Subscription.user_id == bindparam("user_id"))
    .order_by(Subscription.id.desc())
    .limit(1)
)
_BILLED_IN_PERIOD = (
    select(func.count())
    .select_from(BilledCommand)
    .where(
        BilledCommand.user_id == bindparam("user_id"),
        BilledCommand.billed_at >= bindparam("start"),
        BilledCommand.billed_at < bindparam("end"),
    )
)


async def get_latest_subscription(
    db: Db, user_id: uuid.UUID
) -> Row[str, datetime | None, int | None] | None:
    """(status, renews_at, command_quota) of the user's latest row."""
    row: Row[str, datetime | None, int | None] | None = (
        await db.execute(_LATEST_SUBSCRIPTION, {"user_id": user_id})
    ).first()
    return row


async def count_billed_commands(
    db: Db, *, user_id: uuid.UUID, start: datetime, end: datetime
) -> int:
    """Billed commands of the user with `start <= billed_at < end`."""
    result = await db.execute(_BILLED_IN_PERIOD, {"user_id": user_id, "start": start, "end": end})
    return int(result.scalar_one())


async def insert_billed_command_once(
    db: Db, *, bill_id: uuid.UUID, user_id: uuid.UUID, billed_at: datetime
) -> None:
    """Insert unless a row for `bill_id` exists (a concurrent twin included): no error."""
    row = {"bill_id": bill_id, "user_id": user_id, "billed_at": billed_at}
    await db.execute(_BILL_ONCE.on(db), row)


async def limit_statement_time(db: Db, milliseconds: int) -> None:
    """PostgreSQL cancels the transaction's next statements past this (a lock wait included),
    server-side: the connection stays usable. SET LOCAL, so it ends with the transaction or a
    rolled-back savepoint. SQLite has none: there a unit of work waits only for the write lock,
    when it begins (up to its busy timeout, then a database error)."""
    if db.dialect.name == "postgresql":
        await db.execute(
            select(func.set_config("statement_timeout", literal(str(milliseconds)), True))
        )


async def delete_billed_command(db: Db, bill_id: uuid.UUID) -> None:
    await db.execute(_UNBILL, {"bill_id": bill_id})


async def lock_subscriptions(db: Db, user_id: uuid.UUID) -> None:
    """Hold the user's latest subscription row until the transaction ends, so concurrent
    quota checks for one user run one at a time (SQLite's write lock already does this)."""
    if db.dialect.name != "postgresql":
        return
    await db.execute(
        select(Subscription.id)
        .where(Subscription.user_id == user_id)
        .order_by(Subscription.id.desc())
        .limit(1)
        .with_for_update()
    )
