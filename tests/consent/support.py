"""Helpers for the consent tests: the routes, and a look behind the API at the stored rows."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.consent.models import ConsentGrant
from tests.contract import assert_matches_contract
from tests.factories import Device

GRANTS = "/v1/consent/grants"
CURRENT = "/v1/consent/grants/current"


@dataclass(frozen=True)
class ConsentRow:
    id: int
    user_id: uuid.UUID
    scope: str
    granted: bool
    created_at: datetime


async def consent_rows(engine: AsyncEngine) -> list[ConsentRow]:
    """Every consent row of every user, in sequence order."""
    statement = select(
        ConsentGrant.id,
        ConsentGrant.user_id,
        ConsentGrant.scope,
        ConsentGrant.granted,
        ConsentGrant.created_at,
    ).order_by(ConsentGrant.id)
    async with engine.connect() as connection:
        return [ConsentRow(*row) for row in (await connection.execute(statement)).all()]


async def record(
    client: httpx.AsyncClient, device: Device, scope: str, granted: bool
) -> httpx.Response:
    response = await client.post(
        GRANTS, json={"scope": scope, "granted": granted}, headers=device.headers
    )
    assert_matches_contract(response)
    return response


async def recorded(client: httpx.AsyncClient, device: Device, scope: str, granted: bool) -> None:
    response = await record(client, device, scope, granted)
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "recorded", "scope": scope, "granted": granted}


async def current(client: httpx.AsyncClient, device: Device, scope: str) -> dict[str, Any]:
    response = await client.get(CURRENT, params={"scope": scope}, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def parse_utc(value: str) -> datetime:
    """A response's date-time: RFC 3339 with a UTC offset."""
    parsed = datetime.fromisoformat(value)
    assert parsed.utcoffset() == timedelta(0), value
    return parsed
