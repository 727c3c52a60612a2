"""Helpers for the app-grant tests: the route, and a look behind the API at the stored rows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.grants.models import AppGrant
from tests.contract import assert_matches_contract
from tests.factories import Device

APP_GRANTS = "/v1/app-grants"


@dataclass(frozen=True)
class GrantRow:
    id: int
    user_id: uuid.UUID
    package_name: str
    granted: bool
    created_at: datetime


async def grant_rows(engine: AsyncEngine) -> list[GrantRow]:
    """Every app-grant row of every user, in sequence order."""
    statement = select(
        AppGrant.id,
        AppGrant.user_id,
        AppGrant.package_name,
        AppGrant.granted,
        AppGrant.created_at,
    ).order_by(AppGrant.id)
    async with engine.connect() as connection:
        return [GrantRow(*row) for row in (await connection.execute(statement)).all()]


async def record(
    client: httpx.AsyncClient, device: Device, package_name: str, granted: bool
) -> httpx.Response:
    response = await client.post(
        APP_GRANTS, json={"package_name": package_name, "granted": granted}, headers=device.headers
    )
    assert_matches_contract(response)
    return response


async def recorded(
    client: httpx.AsyncClient, device: Device, package_name: str, granted: bool
) -> None:
    response = await record(client, device, package_name, granted)
    assert response.status_code == 200, response.text
    assert response.json() == {
        "status": "recorded",
        "package_name": package_name,
        "granted": granted,
    }


async def listed(client: httpx.AsyncClient, device: Device) -> list[dict[str, Any]]:
    response = await client.get(APP_GRANTS, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 200, response.text
    grants: list[dict[str, Any]] = response.json()["grants"]
    return grants
