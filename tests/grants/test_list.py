"""GET /v1/app-grants: the latest row of every package the user has decided on, by name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.grants.models import AppGrant
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register
from tests.fixtures.grants import APP_GRANTS, grant_rows, listed, recorded


def parse_utc(value: str) -> datetime:
    parsed = datetime.fromisoformat(value)
    assert parsed.utcoffset() == timedelta(0), value
    return parsed


async def test_no_decision_is_an_empty_list(client: httpx.AsyncClient) -> None:
    device = await register(client)
    response = await client.get(APP_GRANTS, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"grants": []}


async def test_one_entry_per_package_with_its_latest_decision_revoked_ones_included(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "org.telegram.messenger", True)
    await recorded(client, device, "com.whatsapp", True)
    await recorded(client, device, "org.telegram.messenger", False)
    await recorded(client, device, "com.android.chrome", False)
    await recorded(client, device, "com.android.chrome", True)
    await recorded(client, device, "com.whatsapp", True)
    grants = await listed(client, device)
    rows = await grant_rows(admin_engine)
    latest = {row.package_name: row for row in rows}  # rows come in sequence order
    assert [(g["package_name"], g["granted"]) for g in grants] == [
        ("com.android.chrome", True),
        ("com.whatsapp", True),
        ("org.telegram.messenger", False),
    ]
    for grant in grants:
        assert parse_utc(grant["created_at"]) == latest[grant["package_name"]].created_at


async def test_sorted_by_package_name_by_code_point(client: httpx.AsyncClient) -> None:
    device = await register(client)
    for name in ("com.b", "com.a", "com.B", "com.a.z", "com.a_x", "Com.c", "com.A"):
        await recorded(client, device, name, True)
    names = [g["package_name"] for g in await listed(client, device)]
    assert names == ["Com.c", "com.A", "com.B", "com.a", "com.a.z", "com.a_x", "com.b"]


async def test_the_sequence_decides_the_latest_row_not_the_clock(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "com.example", True)
    first_id = (await grant_rows(admin_engine))[0].id
    async with admin_engine.begin() as connection:
        await connection.execute(
            update(AppGrant)
            .where(AppGrant.id == first_id)
            .values(created_at=datetime(2999, 1, 1, tzinfo=UTC))
        )
    await recorded(client, device, "com.example", False)
    [grant] = await listed(client, device)
    assert grant["granted"] is False
    assert parse_utc(grant["created_at"]) == (await grant_rows(admin_engine))[-1].created_at


async def test_another_users_decisions_are_never_visible(client: httpx.AsyncClient) -> None:
    mine = await register(client)
    theirs = await register(client)
    await recorded(client, theirs, "com.theirs", True)
    await recorded(client, theirs, "com.shared", True)
    assert await listed(client, mine) == []
    await recorded(client, mine, "com.shared", False)
    assert [(g["package_name"], g["granted"]) for g in await listed(client, mine)] == [
        ("com.shared", False)
    ]
    assert [(g["package_name"], g["granted"]) for g in await listed(client, theirs)] == [
        ("com.shared", True),
        ("com.theirs", True),
    ]


async def test_no_user_id_is_read_from_the_query(client: httpx.AsyncClient) -> None:
    mine = await register(client)
    theirs = await register(client)
    await recorded(client, theirs, "com.theirs", True)
    response = await client.get(
        APP_GRANTS,
        params={"user_id": str(theirs.user_id)},
        headers={**mine.headers, "X-User-ID": str(theirs.user_id)},
    )
    assert_matches_contract(response)
    assert response.json() == {"grants": []}
