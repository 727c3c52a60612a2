"""POST /v1/app-grants: strict validation, append-only rows, the caller's own account."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register
from tests.fixtures.grants import APP_GRANTS, grant_rows, recorded

VALID = "com.example.app"

BAD_PACKAGE_NAMES = [
    "",
    "ab",
    "com",
    "comexample",
    "1com.example",
    "_com.example",
    "com.1example",
    "com._example",
    "com..example",
    ".com.example",
    "com.example.",
    "com.exa-mple",
    "com.exa mple",
    "com/example",
    "com.exämple",
    "com.example\n",
    "a." + "b" * 254,  # 256 characters
]

BAD_BODIES: list[tuple[str, Any]] = [
    *(
        (f"package_name={name!r}", {"package_name": name, "granted": True})
        for name in BAD_PACKAGE_NAMES
    ),
    ("granted as string", {"package_name": VALID, "granted": "true"}),
    ("granted as integer", {"package_name": VALID, "granted": 0}),
    ("granted null", {"package_name": VALID, "granted": None}),
    ("package_name as integer", {"package_name": 12, "granted": True}),
    ("package_name null", {"package_name": None, "granted": True}),
    ("package_name as object", {"package_name": {"name": VALID}, "granted": True}),
    ("missing granted", {"package_name": VALID}),
    ("missing package_name", {"granted": True}),
]


@pytest.mark.parametrize("body", [b for _, b in BAD_BODIES], ids=[i for i, _ in BAD_BODIES])
async def test_an_invalid_body_is_400_and_stores_nothing(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, body: Any
) -> None:
    device = await register(client)
    response = await client.post(APP_GRANTS, content=json.dumps(body), headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 400
    assert set(response.json()) == {"error"}
    assert await grant_rows(admin_engine) == []


@pytest.mark.parametrize(
    "package_name",
    ["a.b", "A.B", "com.example.app", "org.telegram.messenger", "x_1.Y_2.z3", "a." + "b" * 253],
)
async def test_every_valid_package_name_is_recorded_as_sent(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, package_name: str
) -> None:
    device = await register(client)
    await recorded(client, device, package_name, True)
    rows = await grant_rows(admin_engine)
    assert [(r.user_id, r.package_name, r.granted) for r in rows] == [
        (device.user_id, package_name, True)
    ]


async def test_decisions_are_appended_never_updated(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    for granted in (True, False, True, True):
        await recorded(client, device, VALID, granted)
    await recorded(client, device, "org.other.app", False)
    rows = await grant_rows(admin_engine)
    assert [(r.package_name, r.granted) for r in rows] == [
        (VALID, True),
        (VALID, False),
        (VALID, True),
        (VALID, True),
        ("org.other.app", False),
    ]
    assert {r.user_id for r in rows} == {device.user_id}
    assert all(r.created_at.utcoffset() is not None for r in rows)


async def test_package_names_are_case_sensitive(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "com.Example", True)
    await recorded(client, device, "com.example", False)
    rows = await grant_rows(admin_engine)
    assert [(r.package_name, r.granted) for r in rows] == [
        ("com.Example", True),
        ("com.example", False),
    ]


async def test_the_row_belongs_to_the_session_owner_whatever_the_request_says(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    response = await client.post(
        APP_GRANTS,
        params={"user_id": str(other.user_id)},
        json={"package_name": VALID, "granted": True},
        headers={**device.headers, "X-User-ID": str(other.user_id)},
    )
    assert_matches_contract(response)
    assert response.status_code == 200
    assert [r.user_id for r in await grant_rows(admin_engine)] == [device.user_id]
