"""Identity test helpers: the user routes, looking behind the API, account states."""

from __future__ import annotations

import hashlib
import uuid
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import Row, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.admin.models import Permission
from lisan.app import LisanApp
from lisan.auth.models import DeviceSession
from lisan.core import tokens
from lisan.core.types import utcnow
from lisan.users.models import User
from tests.contract import assert_matches_contract
from tests.factories import Device, admin_token, bearer

# Every route a user session token opens (one authentication dependency serves them all).
USER_ROUTES: list[tuple[str, str]] = [
    ("GET", "/v1/users/me"),
    ("POST", "/v1/auth/refresh"),
    ("POST", "/v1/auth/logout"),
]
USER_ROUTE_IDS = [f"{method} {path}" for method, path in USER_ROUTES]

REALM = 'Bearer realm="lisan"'
INVALID_TOKEN = 'error="invalid_token"'


def forge(prefix: str, body: str) -> str:
    """A well-formed token (right shape, valid checksum) that the service never issued."""
    return prefix + body + tokens._checksum(prefix + body)


def token_body(token: str) -> str:
    """The random part of a token, between its prefix and its checksum."""
    return token[len(tokens.SESSION_PREFIX) : -6]


def sha256(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def auth_headers(token: str, install_id: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "X-Install-ID": install_id}


async def call(
    client: httpx.AsyncClient, method: str, path: str, headers: dict[str, str]
) -> httpx.Response:
    response = await client.request(method, path, headers=headers)
    assert_matches_contract(response)
    return response


def assert_unauthenticated(response: httpx.Response, *, token_sent: bool | None) -> None:
    """401 with the contract's challenge. `token_sent=None`: only the realm is required."""
    assert response.status_code == 401, response.text
    assert_matches_contract(response)
    challenge = response.headers["www-authenticate"]
    assert challenge.startswith(REALM), challenge
    if token_sent is True:
        assert INVALID_TOKEN in challenge, challenge
    elif token_sent is False:
        assert challenge == REALM, challenge


def assert_retry_after(response: httpx.Response) -> int:
    value = response.headers["retry-after"]
    assert value.isdigit(), value
    seconds = int(value)
    assert seconds >= 1
    return seconds


async def session_rows(engine: AsyncEngine) -> list[Row[Any]]:
    async with engine.connect() as connection:
        result = await connection.execute(select(DeviceSession.__table__))
        return list(result.all())


async def session_row(engine: AsyncEngine, token: str) -> Row[Any]:
    async with engine.connect() as connection:
        result = await connection.execute(
            select(DeviceSession.__table__).where(DeviceSession.token_hash == sha256(token))
        )
        return result.one()


async def user_row(engine: AsyncEngine, user_id: uuid.UUID) -> Row[Any]:
    async with engine.connect() as connection:
        result = await connection.execute(select(User.__table__).where(User.id == user_id))
        return result.one()


async def set_expiry(engine: AsyncEngine, token: str, expires_at: datetime) -> None:
    """Make a session expire (or not) by rewriting its row: no sleeping in tests."""
    async with engine.begin() as connection:
        result = await connection.execute(
            update(DeviceSession)
            .where(DeviceSession.token_hash == sha256(token))
            .values(expires_at=expires_at)
        )
        assert result.rowcount == 1


async def expire_ago(engine: AsyncEngine, token: str, ago: timedelta) -> None:
    await set_expiry(engine, token, utcnow() - ago)


async def set_account_status(engine: AsyncEngine, user_id: uuid.UUID, status: str) -> None:
    async with engine.begin() as connection:
        result = await connection.execute(
            update(User).where(User.id == user_id).values(status=status)
        )
        assert result.rowcount == 1


async def suspend(app: LisanApp, client: httpx.AsyncClient, device: Device) -> None:
    token = await admin_token(app, Permission.USERS_SUSPEND)
    response = await client.post(f"/v1/admin/users/{device.user_id}/suspend", headers=bearer(token))
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "suspended", "userId": str(device.user_id)}


async def reinstate(app: LisanApp, client: httpx.AsyncClient, device: Device) -> None:
    token = await admin_token(app, Permission.USERS_SUSPEND)
    response = await client.post(
        f"/v1/admin/users/{device.user_id}/reinstate", headers=bearer(token)
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"status": "active", "userId": str(device.user_id)}
