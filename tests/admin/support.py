"""Helpers for the admin tests: paths, and a look behind the API at accounts and the audit."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

import httpx
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.admin.models import AdminCredential, AuditEvent
from lisan.users.models import User

# The (method, path suffix, audited action) of every admin route.
ROUTES = [
    ("GET", "", "user.read"),
    ("POST", "/suspend", "user.suspend"),
    ("POST", "/reinstate", "user.reinstate"),
]
ROUTE_IDS = ["read", "suspend", "reinstate"]


def user_path(user_id: object, suffix: str = "") -> str:
    return f"/v1/admin/users/{user_id}{suffix}"


@dataclass(frozen=True)
class AuditRow:
    admin_credential_id: uuid.UUID | None
    admin_name: str | None
    action: str
    target: str
    outcome: str
    client_ip: str | None
    request_id: str
    created_at: datetime


async def audit_rows(engine: AsyncEngine) -> list[AuditRow]:
    """Every audit row, oldest first."""
    statement = select(
        AuditEvent.admin_credential_id,
        AuditEvent.admin_name,
        AuditEvent.action,
        AuditEvent.target,
        AuditEvent.outcome,
        AuditEvent.client_ip,
        AuditEvent.request_id,
        AuditEvent.created_at,
    ).order_by(AuditEvent.created_at)
    async with engine.connect() as connection:
        result = await connection.execute(statement)
        return [AuditRow(*row) for row in result]


async def audit_of(engine: AsyncEngine, response: httpx.Response) -> AuditRow:
    """The one audit row of the call that got `response` (matched by its X-Request-ID)."""
    request_id = response.headers["x-request-id"]
    rows = [row for row in await audit_rows(engine) if row.request_id == request_id]
    assert len(rows) == 1, f"{len(rows)} audit rows for request {request_id}"
    return rows[0]


async def account(engine: AsyncEngine, user_id: uuid.UUID) -> tuple[str, datetime | None]:
    """(status, suspended_at) of the account as stored."""
    async with engine.connect() as connection:
        result = await connection.execute(
            select(User.status, User.suspended_at).where(User.id == user_id)
        )
        row = result.one()
    return row.status, row.suspended_at


async def mark_deleted(engine: AsyncEngine, user_id: uuid.UUID) -> None:
    """Put the account in `deleted` (deletion requested), as DELETE /v1/consent/user-data does."""
    async with engine.begin() as connection:
        await connection.execute(update(User).where(User.id == user_id).values(status="deleted"))


async def credential_id(engine: AsyncEngine, name: str) -> uuid.UUID:
    async with engine.connect() as connection:
        result = await connection.execute(
            select(AdminCredential.id).where(AdminCredential.name == name)
        )
        found: uuid.UUID = result.scalar_one()
    return found
