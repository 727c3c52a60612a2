"""Billing test helpers: subscription rows and billed commands, written as the service writes
them, and the entitlement route."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import httpx

from lisan.app import LisanApp
from lisan.billing import service
from lisan.billing.schemas import SubscriptionStatus
from lisan.core.database import unit_of_work
from tests.contract import assert_matches_contract
from tests.factories import Device

ENTITLEMENT = "/v1/billing/entitlement"


async def subscribe(
    app: LisanApp,
    user_id: uuid.UUID,
    status: str,
    renews_at: datetime | None = None,
    quota: int | None = None,
) -> None:
    """A subscription row, as `lisan billing set` records it."""
    async with unit_of_work(app.services.resources.sessions) as session:
        await service.record_subscription(
            session, user_id, SubscriptionStatus(status), renews_at, quota
        )


async def bill(app: LisanApp, user_id: uuid.UUID, command_id: uuid.UUID | None = None) -> uuid.UUID:
    """One billed command, as the command route bills it."""
    command_id = command_id or uuid.uuid4()
    async with unit_of_work(app.services.resources.sessions) as session:
        await service.record_billed_command(session, user_id=user_id, bill_id=command_id)
    return command_id


async def get_entitlement(client: httpx.AsyncClient, device: Device) -> httpx.Response:
    response = await client.get(ENTITLEMENT, headers=device.headers)
    assert_matches_contract(response)
    return response


async def entitlement_of(client: httpx.AsyncClient, device: Device) -> dict[str, Any]:
    response = await get_entitlement(client, device)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body
