"""Entitlement: the latest subscription row a billing sync recorded, normalised, and the usage of
the current billing period. The command pipeline asks `entitlement` (inside its unit of work) and
`allows_commands`; the GET route `current_entitlement` (two reads on the look-up path)."""

from __future__ import annotations

import asyncio
import calendar
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from sqlalchemy.exc import SQLAlchemyError

from lisan.billing import repository
from lisan.billing.models import Subscription
from lisan.billing.schemas import Entitlement, SubscriptionState, SubscriptionStatus
from lisan.core.settings import BillingEnforcement
from lisan.db.handle import Db
from lisan.db.store import Database
from lisan.db.types import utcnow
from lisan.users import service as users

log = logging.getLogger(__name__)

# A subscription read slower than this counts as "cannot be read now" (UNKNOWN).
ENTITLEMENT_READ_TIMEOUT_S = 2.0

_ENTITLED = frozenset({SubscriptionState.ACTIVE, SubscriptionState.TRIAL})


def subscription_state(
    status: str | None, renews_at: datetime | None, now: datetime
) -> SubscriptionState:
    """The normalised state of the latest row (`status` None: there is no row).

    An active or trial row whose renewal date has passed is EXPIRED. A stored status outside the
    known six (compared ignoring case) cannot be vouched for: UNKNOWN, never active.
    """
    if status is None:
        return SubscriptionState.NONE
    try:
        stored = SubscriptionStatus(status.strip().upper())
    except ValueError:
        return SubscriptionState.UNKNOWN
    state = SubscriptionState(stored.value)
    if state in _ENTITLED and renews_at is not None and renews_at <= now:
        return SubscriptionState.EXPIRED
    return state


def months_before(moment: datetime, months: int) -> datetime:
    """The same time `months` calendar months earlier, counted from `moment` itself (so a cycle
    anchored on the 31st keeps its day where the month has one); the day clamped (Mar 31, one
    month back, is Feb 28 or 29)."""
    year, month_index = divmod(moment.year * 12 + moment.month - 1 - months, 12)
    month = month_index + 1
    day = min(moment.day, calendar.monthrange(year, month)[1])
    return moment.replace(year=year, month=month, day=day)


def billing_period(renews_at: datetime | None, now: datetime) -> tuple[datetime, datetime]:
    """[start, end) of the period whose commands count. With a renewal date: the monthly cycle
    anchored on it that holds `now` (an annual plan renewing in eight months counts this
    month's commands), or the last month before it once it has passed. Without one: the current
    UTC calendar month."""
    if renews_at is not None:
        if now >= renews_at:
            return months_before(renews_at, 1), renews_at
        back = max((renews_at.year - now.year) * 12 + renews_at.month - now.month, 0)
        while back > 0 and months_before(renews_at, back) <= now:
            back -= 1
        while months_before(renews_at, back + 1) > now:
            back += 1
        return months_before(renews_at, back + 1), months_before(renews_at, back)
    start = now.astimezone(UTC).replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    year, month = (start.year, start.month + 1) if start.month < 12 else (start.year + 1, 1)
    return start, start.replace(year=year, month=month)


def unknown_entitlement(enforcement: BillingEnforcement) -> Entitlement:
    return Entitlement(
        enforcement=enforcement,
        state=SubscriptionState.UNKNOWN,
        status=None,
        renews_at=None,
        command_quota=None,
        commands_used=None,
    )


def _time_left_ms(deadline: float) -> int:
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError
    return max(1, int(left * 1000))


async def _read_entitlement(
    db: Db,
    user_id: uuid.UUID,
    enforcement: BillingEnforcement,
    bound: Callable[[], Awaitable[None]],
) -> Entitlement:
    """The two reads (`bound` runs before each: the caller's way to limit its time)."""
    await bound()
    latest = await repository.get_latest_subscription(db, user_id)
    renews_at = latest.renews_at if latest else None
    now = utcnow()
    start, end = billing_period(renews_at, now)
    await bound()
    used = await repository.count_billed_commands(db, user_id=user_id, start=start, end=end)
    return Entitlement(
        enforcement=enforcement,
        state=subscription_state(latest.status if latest else None, renews_at, now),
        status=latest.status if latest else None,
        renews_at=renews_at,
        command_quota=latest.command_quota if latest else None,
        commands_used=used,
    )


async def entitlement(db: Db, user_id: uuid.UUID, enforcement: BillingEnforcement) -> Entitlement:
    """The user's entitlement now, inside the caller's unit of work (the command pipeline's
    reservation); UNKNOWN (all else null) when the store fails or is slow. The unit of work
    goes on writing: the read never spoils it."""
    deadline = time.monotonic() + ENTITLEMENT_READ_TIMEOUT_S

    async def limit() -> None:
        # The database's own limit, per statement: a client-side cancel would leave the
        # connection, and so the caller's unit of work, unusable.
        await repository.limit_statement_time(db, _time_left_ms(deadline))

    try:
        # A savepoint, always rolled back (the read changes nothing): a failed or timed-out
        # read and its statement time limit go with it, and the caller's unit of work goes on.
        async with db.savepoint(keep=False):
            return await _read_entitlement(db, user_id, enforcement, limit)
    except (SQLAlchemyError, OSError, TimeoutError) as exc:
        return _unreadable(exc, enforcement)


async def current_entitlement(
    database: Database, user_id: uuid.UUID, enforcement: BillingEnforcement
) -> Entitlement:
    """The user's entitlement now, read alone (GET /v1/billing/entitlement): two statements
    outside any unit of work, bounded as a whole; UNKNOWN when the store fails or is slow (a
    connection cut off mid-read by the bound is discarded, never reused)."""
    try:
        async with asyncio.timeout(ENTITLEMENT_READ_TIMEOUT_S), database.reads_together() as db:
            return await _read_entitlement(db, user_id, enforcement, _unbounded)
    except (SQLAlchemyError, OSError, TimeoutError) as exc:
        return _unreadable(exc, enforcement)


async def _unbounded() -> None:
    return None


def _unreadable(error: Exception, enforcement: BillingEnforcement) -> Entitlement:
    log.warning("subscription store unreadable", extra={"error": type(error).__name__})
    return unknown_entitlement(enforcement)


def allows_commands(ent: Entitlement) -> bool | None:
    """Whether the subscription lets the user run a command now: True for ACTIVE or TRIAL
    within the quota, False otherwise, None when it cannot be told (UNKNOWN). Whether the
    deployment enforces it (`ent.enforcement`) is the caller's decision."""
    if ent.state is SubscriptionState.UNKNOWN:
        return None
    if ent.state not in _ENTITLED:
        return False
    if ent.command_quota is None:
        return True
    return (ent.commands_used or 0) < ent.command_quota


async def record_billed_command(db: Db, *, user_id: uuid.UUID, bill_id: uuid.UUID) -> None:
    """Bill one command; billing the same bill id again changes nothing."""
    await repository.insert_billed_command_once(
        db, bill_id=bill_id, user_id=user_id, billed_at=utcnow()
    )


async def reserve_command(
    db: Db,
    *,
    user_id: uuid.UUID,
    bill_id: uuid.UUID,
    enforcement: BillingEnforcement,
) -> bool | None:
    """Under enforcement, before any provider call: whether the user may run a command, and if
    so the bill, taken now so concurrent commands cannot all pass a quota of one. None when the
    subscription cannot be read (never treated as allowed)."""
    try:
        async with db.savepoint():
            await repository.lock_subscriptions(db, user_id)
    except (SQLAlchemyError, OSError, TimeoutError) as exc:
        log.warning("subscription store unreadable", extra={"error": type(exc).__name__})
        return None
    allowed = allows_commands(await entitlement(db, user_id, enforcement))
    if allowed:
        await record_billed_command(db, user_id=user_id, bill_id=bill_id)
    return allowed


async def cancel_bill(db: Db, bill_id: uuid.UUID) -> None:
    """Undo a reservation for a command that ended up not billable."""
    await repository.delete_billed_command(db, bill_id)


async def record_subscription(
    db: Db,
    user_id: uuid.UUID,
    status: SubscriptionStatus,
    renews_at: datetime | None = None,
    command_quota: int | None = None,
) -> Subscription:
    """Append a subscription row, as a billing sync does; it becomes the user's current one.
    An unknown user is NotFound."""
    if command_quota is not None and command_quota < 0:
        raise ValueError("command_quota must be >= 0")
    account = await users.get_account(db, str(user_id))
    subscription = Subscription(
        user_id=account.id,
        status=status.value,
        renews_at=renews_at,
        command_quota=command_quota,
        created_at=utcnow(),
    )
    await repository.insert_subscription(db, subscription)
    return subscription
