from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from lisan.core.schemas import ResponseModel
from lisan.core.settings import BillingEnforcement


class SubscriptionStatus(StrEnum):
    """The statuses a billing sync records (`lisan billing set --status`)."""

    ACTIVE = "ACTIVE"
    TRIAL = "TRIAL"
    PAST_DUE = "PAST_DUE"
    CANCELED = "CANCELED"
    INACTIVE = "INACTIVE"
    EXPIRED = "EXPIRED"


class SubscriptionState(StrEnum):
    """The normalised state the API reports: a stored status, or NONE, or UNKNOWN."""

    ACTIVE = "ACTIVE"
    TRIAL = "TRIAL"
    PAST_DUE = "PAST_DUE"
    CANCELED = "CANCELED"
    INACTIVE = "INACTIVE"
    EXPIRED = "EXPIRED"
    NONE = "NONE"  # no subscription row
    UNKNOWN = "UNKNOWN"  # could not be determined now; never treated as active


class Entitlement(ResponseModel):
    # Every field is "or null" in the contract: always sent, null when it does not apply.
    enforcement: BillingEnforcement
    state: SubscriptionState
    status: str | None
    renews_at: datetime | None
    command_quota: int | None
    commands_used: int | None
