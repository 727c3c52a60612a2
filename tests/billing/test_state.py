"""The pure rules: normalising the latest row to a state, the billing period, the gate."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from lisan.billing.schemas import Entitlement, SubscriptionState, SubscriptionStatus
from lisan.billing.service import (
    allows_commands,
    billing_period,
    months_before,
    subscription_state,
    unknown_entitlement,
)
from lisan.core.settings import BillingEnforcement

NOW = datetime(2026, 11, 21, 5, 44, 54, tzinfo=UTC)
LATER = NOW + timedelta(days=10)
EARLIER = NOW - timedelta(seconds=1)


def test_no_row_is_none() -> None:
    assert subscription_state(None, None, NOW) is SubscriptionState.NONE


@pytest.mark.parametrize("status", list(SubscriptionStatus))
@pytest.mark.parametrize("renews_at", [None, LATER], ids=["no-renewal", "renews-later"])
def test_a_stored_status_is_its_state(status: SubscriptionStatus, renews_at: datetime) -> None:
    assert subscription_state(status.value, renews_at, NOW) == SubscriptionState(status.value)


@pytest.mark.parametrize("status", ["ACTIVE", "TRIAL"])
@pytest.mark.parametrize("renews_at", [EARLIER, NOW], ids=["passed", "exactly-now"])
def test_active_or_trial_past_renewal_is_expired(status: str, renews_at: datetime) -> None:
    assert subscription_state(status, renews_at, NOW) is SubscriptionState.EXPIRED


@pytest.mark.parametrize("status", ["PAST_DUE", "CANCELED", "INACTIVE", "EXPIRED"])
def test_other_statuses_keep_their_state_past_renewal(status: str) -> None:
    assert subscription_state(status, EARLIER, NOW) == SubscriptionState(status)


def test_a_stored_status_is_compared_ignoring_case_and_spaces() -> None:
    assert subscription_state(" active ", LATER, NOW) is SubscriptionState.ACTIVE
    assert subscription_state("trial", EARLIER, NOW) is SubscriptionState.EXPIRED


@pytest.mark.parametrize("status", ["PAUSED", "", "NONE", "UNKNOWN", "ACTIVE!"])
def test_a_status_outside_the_six_is_unknown(status: str) -> None:
    assert subscription_state(status, LATER, NOW) is SubscriptionState.UNKNOWN


@pytest.mark.parametrize(
    ("moment", "expected"),
    [
        (datetime(2026, 12, 1, 0, 0, tzinfo=UTC), datetime(2026, 11, 1, 0, 0, tzinfo=UTC)),
        (datetime(2026, 3, 31, 9, 30, tzinfo=UTC), datetime(2026, 2, 28, 9, 30, tzinfo=UTC)),
        (datetime(2028, 3, 30, tzinfo=UTC), datetime(2028, 2, 29, tzinfo=UTC)),
        (datetime(2027, 1, 15, 12, tzinfo=UTC), datetime(2026, 12, 15, 12, tzinfo=UTC)),
    ],
    ids=["first-of-month", "clamped", "leap-year", "across-new-year"],
)
def test_one_month_before(moment: datetime, expected: datetime) -> None:
    assert months_before(moment, 1) == expected


@pytest.mark.parametrize(
    ("renews_at", "now", "start", "end"),
    [
        (  # an annual plan: the monthly cycle anchored on the renewal day that holds now
            datetime(2027, 6, 15, 8, tzinfo=UTC),
            datetime(2026, 11, 23, 12, tzinfo=UTC),
            datetime(2026, 11, 15, 8, tzinfo=UTC),
            datetime(2026, 12, 15, 8, tzinfo=UTC),
        ),
        (  # the anchor day is kept where a month has it (never drifts to the 28th)
            datetime(2027, 3, 31, tzinfo=UTC),
            datetime(2026, 12, 31, 1, tzinfo=UTC),
            datetime(2026, 12, 31, tzinfo=UTC),
            datetime(2027, 1, 31, tzinfo=UTC),
        ),
        (  # before the anchor's time of day on the anchor day: still the previous cycle
            datetime(2027, 6, 15, 8, tzinfo=UTC),
            datetime(2026, 11, 15, 7, tzinfo=UTC),
            datetime(2026, 10, 15, 8, tzinfo=UTC),
            datetime(2026, 11, 15, 8, tzinfo=UTC),
        ),
    ],
    ids=["annual-plan", "anchor-on-the-31st", "anchor-day-before-its-hour"],
)
def test_a_far_renewal_counts_the_monthly_cycle_that_holds_now(
    renews_at: datetime, now: datetime, start: datetime, end: datetime
) -> None:
    """A renewal more than a month away still counts usage in monthly periods: a quota binds."""
    assert billing_period(renews_at, now) == (start, end)


@pytest.mark.parametrize("days", [1, 27, 45, 200, 364, 3650])
def test_the_period_always_holds_now_and_is_a_month_long(days: int) -> None:
    renews_at = NOW + timedelta(days=days, hours=5)
    start, end = billing_period(renews_at, NOW)
    assert start <= NOW < end
    assert timedelta(days=28) <= end - start <= timedelta(days=31)


def test_the_period_is_the_month_before_the_renewal() -> None:
    renews_at = datetime(2026, 12, 5, 8, tzinfo=UTC)
    assert billing_period(renews_at, NOW) == (datetime(2026, 11, 5, 8, tzinfo=UTC), renews_at)


@pytest.mark.parametrize(
    ("now", "start", "end"),
    [
        (NOW, datetime(2026, 11, 1, tzinfo=UTC), datetime(2026, 12, 1, tzinfo=UTC)),
        (
            datetime(2026, 12, 31, 23, 59, tzinfo=UTC),
            datetime(2026, 12, 1, tzinfo=UTC),
            datetime(2027, 1, 1, tzinfo=UTC),
        ),
        (
            # 02:00 on Dec 1 in Addis Ababa is still November in UTC.
            datetime(2026, 12, 1, 2, tzinfo=timezone(timedelta(hours=3))),
            datetime(2026, 11, 1, tzinfo=UTC),
            datetime(2026, 12, 1, tzinfo=UTC),
        ),
    ],
    ids=["mid-month", "december", "utc-not-local"],
)
def test_without_a_renewal_the_period_is_the_utc_calendar_month(
    now: datetime, start: datetime, end: datetime
) -> None:
    assert billing_period(None, now) == (start, end)


def _entitlement(state: str, quota: int | None = None, used: int | None = 0) -> Entitlement:
    return Entitlement(
        enforcement=BillingEnforcement.ENFORCED,
        state=SubscriptionState(state),
        status=state,
        renews_at=None,
        command_quota=quota,
        commands_used=used,
    )


@pytest.mark.parametrize("state", ["ACTIVE", "TRIAL"])
def test_active_and_trial_allow_commands_within_the_quota(state: str) -> None:
    assert allows_commands(_entitlement(state)) is True
    assert allows_commands(_entitlement(state, quota=3, used=2)) is True
    assert allows_commands(_entitlement(state, quota=3, used=3)) is False
    assert allows_commands(_entitlement(state, quota=0, used=0)) is False


@pytest.mark.parametrize("state", ["PAST_DUE", "CANCELED", "INACTIVE", "EXPIRED", "NONE"])
def test_every_other_known_state_refuses_commands(state: str) -> None:
    assert allows_commands(_entitlement(state)) is False


def test_unknown_cannot_tell() -> None:
    for enforcement in BillingEnforcement:
        assert allows_commands(unknown_entitlement(enforcement)) is None
