"""POST /v1/consent/grants: strict validation, append-only rows, the caller's own account."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.consent import GRANTS, consent_rows, recorded
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register

BAD_BODIES: list[tuple[str, Any]] = [
    ("uppercase scope", {"scope": "Audio_retention", "granted": True}),
    ("empty scope", {"scope": "", "granted": True}),
    ("65-char scope", {"scope": "a" * 65, "granted": True}),
    ("space in scope", {"scope": "audio retention", "granted": True}),
    ("slash in scope", {"scope": "audio/retention", "granted": True}),
    ("non-ASCII scope", {"scope": "audiö", "granted": True}),
    ("trailing newline", {"scope": "audio_retention\n", "granted": True}),
    ("user id in body", {"scope": "audio_retention", "granted": True, "user_id": "u"}),
    ("granted as string", {"scope": "audio_retention", "granted": "true"}),
    ("granted as integer", {"scope": "audio_retention", "granted": 1}),
    ("granted null", {"scope": "audio_retention", "granted": None}),
    ("scope as integer", {"scope": 12, "granted": True}),
    ("scope null", {"scope": None, "granted": True}),
    ("scope as array", {"scope": ["audio_retention"], "granted": True}),
    ("missing granted", {"scope": "audio_retention"}),
    ("missing scope", {"granted": True}),
]


@pytest.mark.parametrize("body", [b for _, b in BAD_BODIES], ids=[i for i, _ in BAD_BODIES])
async def test_an_invalid_body_is_400_and_stores_nothing(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, body: Any
) -> None:
    device = await register(client)
    response = await client.post(GRANTS, content=json.dumps(body), headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 400
    assert set(response.json()) == {"error"}
    assert await consent_rows(admin_engine) == []


@pytest.mark.parametrize("scope", ["a", "a" * 64, "audio_retention", "0.9-x_y", "-", "."])
async def test_every_valid_scope_is_recorded_as_sent(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, scope: str
) -> None:
    device = await register(client)
    await recorded(client, device, scope, True)
    rows = await consent_rows(admin_engine)
    assert [(r.user_id, r.scope, r.granted) for r in rows] == [(device.user_id, scope, True)]


async def test_decisions_are_appended_never_updated(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    for granted in (True, False, True, True):
        await recorded(client, device, "audio_retention", granted)
    await recorded(client, device, "analytics", False)
    rows = await consent_rows(admin_engine)
    assert [(r.scope, r.granted) for r in rows] == [
        ("audio_retention", True),
        ("audio_retention", False),
        ("audio_retention", True),
        ("audio_retention", True),
        ("analytics", False),
    ]
    assert {r.user_id for r in rows} == {device.user_id}
    assert all(r.created_at.utcoffset() is not None for r in rows)


async def test_revoking_a_scope_never_decided_appends_a_false_row(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "audio_retention", False)
    rows = await consent_rows(admin_engine)
    assert [(r.scope, r.granted) for r in rows] == [("audio_retention", False)]


async def test_the_row_belongs_to_the_session_owner_whatever_the_request_says(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    response = await client.post(
        GRANTS,
        params={"user_id": str(other.user_id)},
        json={"scope": "audio_retention", "granted": True},
        headers={**device.headers, "X-User-ID": str(other.user_id)},
    )
    assert_matches_contract(response)
    assert response.status_code == 200
    rows = await consent_rows(admin_engine)
    assert [r.user_id for r in rows] == [device.user_id]


async def test_each_user_writes_only_their_own_rows(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    first = await register(client)
    second = await register(client)
    await recorded(client, first, "audio_retention", True)
    await recorded(client, second, "audio_retention", False)
    rows = await consent_rows(admin_engine)
    assert [(r.user_id, r.granted) for r in rows] == [
        (first.user_id, True),
        (second.user_id, False),
    ]
