"""`lisan billing ...`: subscription rows recorded from the operator's shell, as a billing sync
would record them."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Annotated

import typer

from lisan.billing import service as billing
from lisan.billing.schemas import SubscriptionStatus
from lisan.core.errors import NotFound
from lisan.db.cli import fail, load_settings_or_exit, run_in_unit_of_work
from lisan.db.handle import Db

billing_app = typer.Typer(
    help="Subscriptions, as a billing sync records them.", no_args_is_help=True
)


MAX_QUOTA = 2**31 - 1  # the column is a 32-bit integer on PostgreSQL
# Renewal dates the billing-cycle arithmetic (months counted back from it) and every database
# can hold, with room to spare.
RENEWAL_YEARS = range(1970, 9000)


def _renewal_date(text: str | None) -> datetime | None:
    """ISO 8601; a time without an offset is UTC."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: an offset past year 1 or 9999
        raise typer.BadParameter(
            "not an ISO 8601 date-time (e.g. 2026-12-01T00:00:00Z)", param_hint="--renews-at"
        ) from None
    if moment.year not in RENEWAL_YEARS:
        raise typer.BadParameter(
            f"must be in the years {RENEWAL_YEARS.start} to {RENEWAL_YEARS.stop - 1}",
            param_hint="--renews-at",
        )
    return moment


@billing_app.command("set")
def billing_set(
    user_id: Annotated[uuid.UUID, typer.Option("--user-id", help="The account's user id.")],
    status: Annotated[
        SubscriptionStatus, typer.Option("--status", help="The subscription's stored status.")
    ],
    renews_at: Annotated[
        str | None,
        typer.Option(
            "--renews-at",
            metavar="ISO8601",
            help="Renewal date-time in ISO 8601, e.g. 2026-12-01T00:00:00+03:00; without an "
            "offset it is UTC. Usage counts the month before it; once it has passed, ACTIVE and "
            "TRIAL read as EXPIRED.",
        ),
    ] = None,
    quota: Annotated[
        int | None,
        typer.Option("--quota", min=0, max=MAX_QUOTA, help="Commands allowed per billing period."),
    ] = None,
) -> None:
    """Record a subscription row for a user, as a billing sync would (the latest row counts)."""
    settings = load_settings_or_exit()
    renewal = _renewal_date(renews_at)

    async def record(db: Db) -> None:
        await billing.record_subscription(db, user_id, status, renewal, quota)

    try:
        run_in_unit_of_work(settings, record)
    except NotFound:
        fail(f"no user with id {user_id}")
    typer.echo(f"recorded {status.value} for user {user_id}", err=True)
