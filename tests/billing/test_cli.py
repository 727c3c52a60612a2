"""`lisan billing set`, run as an operator runs it, on the suite's database (both kinds)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.billing.models import Subscription
from tests.fixtures.billing import entitlement_of
from tests.fixtures.cli import lisan, messages
from tests.fixtures.devices import Device, register


async def subscription_rows(engine: AsyncEngine, user_id: uuid.UUID) -> list[tuple[Any, ...]]:
    async with engine.connect() as connection:
        result = await connection.execute(
            select(Subscription.status, Subscription.renews_at, Subscription.command_quota)
            .where(Subscription.user_id == user_id)
            .order_by(Subscription.id)
        )
        return [tuple(row) for row in result]


@pytest.fixture
async def device(client: httpx.AsyncClient) -> Device:
    return await register(client)


async def test_set_records_a_row_the_entitlement_reads(
    database_url: str,
    tmp_path: Path,
    client: httpx.AsyncClient,
    admin_engine: AsyncEngine,
    device: Device,
) -> None:
    result = await lisan(
        database_url,
        tmp_path,
        "billing",
        "set",
        "--user-id",
        str(device.user_id),
        "--status",
        "ACTIVE",
        "--renews-at",
        "2099-01-31T12:00:00+03:00",
        "--quota",
        "300",
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert messages(result.stderr) == [f"recorded ACTIVE for user {device.user_id}"]
    renews_at = datetime(2099, 1, 31, 9, 0, tzinfo=UTC)
    assert await subscription_rows(admin_engine, device.user_id) == [("ACTIVE", renews_at, 300)]
    body = await entitlement_of(client, device)
    assert datetime.fromisoformat(body.pop("renews_at")) == renews_at
    assert body == {
        "enforcement": "disabled",
        "state": "ACTIVE",
        "status": "ACTIVE",
        "command_quota": 300,
        "commands_used": 0,
    }


async def test_a_renewal_without_an_offset_is_utc_and_the_latest_row_counts(
    database_url: str,
    tmp_path: Path,
    client: httpx.AsyncClient,
    admin_engine: AsyncEngine,
    device: Device,
) -> None:
    user = str(device.user_id)
    first = await lisan(
        database_url, tmp_path, "billing", "set", "--user-id", user, "--status", "TRIAL"
    )
    second = await lisan(
        database_url,
        tmp_path,
        "billing",
        "set",
        "--user-id",
        user,
        "--status",
        "CANCELED",
        "--renews-at",
        "2099-03-01T08:30:00",
    )
    assert (first.returncode, second.returncode) == (0, 0), first.stderr + second.stderr
    assert await subscription_rows(admin_engine, device.user_id) == [
        ("TRIAL", None, None),
        ("CANCELED", datetime(2099, 3, 1, 8, 30, tzinfo=UTC), None),
    ]
    assert (await entitlement_of(client, device))["state"] == "CANCELED"


async def test_an_unknown_user_exits_1_with_one_line(
    database_url: str, tmp_path: Path, admin_engine: AsyncEngine
) -> None:
    nobody = uuid.uuid4()
    result = await lisan(
        database_url, tmp_path, "billing", "set", "--user-id", str(nobody), "--status", "ACTIVE"
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert messages(result.stderr) == [f"lisan: no user with id {nobody}"]
    assert await subscription_rows(admin_engine, nobody) == []


@pytest.mark.parametrize(
    "arguments",
    [
        ["--status", "PAUSED"],
        ["--status", "active"],
        ["--status", "NONE"],
        ["--status", "UNKNOWN"],
        ["--status", "ACTIVE", "--renews-at", "next tuesday"],
        ["--status", "ACTIVE", "--renews-at", "2026-13-01T00:00:00Z"],
        ["--status", "ACTIVE", "--quota", "-1"],
        ["--status", "ACTIVE", "--quota", "ten"],
        # Values the database or the cycle arithmetic cannot hold.
        ["--status", "ACTIVE", "--quota", "2147483648"],
        ["--status", "ACTIVE", "--renews-at", "0001-01-01T00:00:00Z"],
        ["--status", "ACTIVE", "--renews-at", "9999-12-31T23:59:59Z"],
        [],
    ],
    ids=[
        "unknown-status",
        "lowercase-status",
        "state-not-status",
        "unknown-state",
        "unparseable-date",
        "impossible-date",
        "negative-quota",
        "text-quota",
        "quota-past-32-bits",
        "year-one",
        "year-9999",
        "no-status",
    ],
)
async def test_bad_arguments_exit_2_and_record_nothing(
    database_url: str,
    tmp_path: Path,
    admin_engine: AsyncEngine,
    device: Device,
    arguments: list[str],
) -> None:
    result = await lisan(
        database_url, tmp_path, "billing", "set", "--user-id", str(device.user_id), *arguments
    )
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    assert await subscription_rows(admin_engine, device.user_id) == []


async def test_a_user_id_that_is_not_a_uuid_exits_2(database_url: str, tmp_path: Path) -> None:
    result = await lisan(
        database_url, tmp_path, "billing", "set", "--user-id", "42", "--status", "ACTIVE"
    )
    assert result.returncode == 2
    assert result.stdout == ""


async def test_help_says_how_a_date_without_an_offset_is_read(tmp_path: Path) -> None:
    result = await lisan("sqlite+aiosqlite:///unused.db", tmp_path, "billing", "set", "--help")
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "without an offset" in text
    assert "UTC" in text


@pytest.mark.parametrize(
    "renews_at", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-01:00"], ids=["min", "max"]
)
async def test_a_renewal_outside_the_calendar_in_utc_exits_2(
    database_url: str, tmp_path: Path, device: Device, renews_at: str
) -> None:
    result = await lisan(
        database_url,
        tmp_path,
        "billing",
        "set",
        "--user-id",
        str(device.user_id),
        "--status",
        "ACTIVE",
        "--renews-at",
        renews_at,
    )
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
