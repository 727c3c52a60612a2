"""GET /v1/consent/grants/current and `is_granted`: the latest row of (user, scope) by sequence;
no row is not granted."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import httpx
import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.consent.models import ConsentGrant
from lisan.consent.service import AUDIO_RETENTION, is_granted
from lisan.db.store import unit_of_work
from tests.fixtures.consent import CURRENT, consent_rows, current, parse_utc, recorded
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register


async def test_a_scope_never_decided_is_not_granted(client: httpx.AsyncClient) -> None:
    device = await register(client)
    assert await current(client, device, "audio_retention") == {
        "scope": "audio_retention",
        "granted": False,
        "created_at": None,
    }


async def test_current_is_the_latest_decision(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "audio_retention", True)
    granted = await current(client, device, "audio_retention")
    await recorded(client, device, "audio_retention", False)
    revoked = await current(client, device, "audio_retention")
    await recorded(client, device, "audio_retention", True)
    regranted = await current(client, device, "audio_retention")
    assert [granted["granted"], revoked["granted"], regranted["granted"]] == [True, False, True]
    rows = await consent_rows(admin_engine)
    assert len(rows) == 3
    assert parse_utc(regranted["created_at"]) == rows[-1].created_at
    assert regranted["scope"] == "audio_retention"


async def test_the_sequence_decides_the_latest_row_not_the_clock(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "audio_retention", True)
    first_id = (await consent_rows(admin_engine))[0].id
    # The first row's clock runs far ahead: it must still not count as the latest.
    async with admin_engine.begin() as connection:
        await connection.execute(
            update(ConsentGrant)
            .where(ConsentGrant.id == first_id)
            .values(created_at=datetime(2999, 1, 1, tzinfo=UTC))
        )
    await recorded(client, device, "audio_retention", False)
    state = await current(client, device, "audio_retention")
    assert state["granted"] is False
    assert parse_utc(state["created_at"]) == (await consent_rows(admin_engine))[-1].created_at


async def test_scopes_are_independent(client: httpx.AsyncClient) -> None:
    device = await register(client)
    await recorded(client, device, "audio_retention", True)
    await recorded(client, device, "analytics", False)
    assert (await current(client, device, "audio_retention"))["granted"] is True
    assert (await current(client, device, "analytics"))["granted"] is False
    assert (await current(client, device, "audio_retention.v2"))["created_at"] is None


async def test_another_users_decisions_are_never_visible(client: httpx.AsyncClient) -> None:
    mine = await register(client)
    theirs = await register(client)
    await recorded(client, theirs, "audio_retention", True)
    assert await current(client, mine, "audio_retention") == {
        "scope": "audio_retention",
        "granted": False,
        "created_at": None,
    }
    await recorded(client, mine, "analytics", True)
    await recorded(client, theirs, "analytics", False)
    assert (await current(client, mine, "analytics"))["granted"] is True
    assert (await current(client, theirs, "audio_retention"))["granted"] is True


async def test_no_user_id_is_read_from_the_query(client: httpx.AsyncClient) -> None:
    mine = await register(client)
    theirs = await register(client)
    await recorded(client, theirs, "audio_retention", True)
    response = await client.get(
        CURRENT,
        params={"scope": "audio_retention", "user_id": str(theirs.user_id)},
        headers={**mine.headers, "X-User-ID": str(theirs.user_id)},
    )
    assert_matches_contract(response)
    assert response.json()["granted"] is False


BAD_SCOPES = ["", "a" * 65, "Audio", "AUDIO_RETENTION", "audio retention", "audio/x", "é", "x\n"]


@pytest.mark.parametrize("scope", BAD_SCOPES, ids=repr)
async def test_an_invalid_scope_query_is_400(client: httpx.AsyncClient, scope: str) -> None:
    device = await register(client)
    response = await client.get(CURRENT, params={"scope": scope}, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 400
    assert set(response.json()) == {"error"}


async def test_a_missing_scope_query_is_400(client: httpx.AsyncClient) -> None:
    device = await register(client)
    response = await client.get(CURRENT, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 400
    assert set(response.json()) == {"error"}


@pytest.mark.parametrize("scope", ["a", "a" * 64, "0.9-x_y"])
async def test_scope_query_boundaries_are_accepted(client: httpx.AsyncClient, scope: str) -> None:
    device = await register(client)
    assert (await current(client, device, scope))["scope"] == scope


async def test_is_granted_follows_the_latest_decision_of_that_user(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    mine = await register(client)
    theirs = await register(client)

    async def granted(user_id: uuid.UUID, scope: str = AUDIO_RETENTION) -> bool:
        async with unit_of_work(admin_engine) as db:
            return await is_granted(db, user_id, scope)

    assert AUDIO_RETENTION == "audio_retention"
    assert await granted(mine.user_id) is False
    await recorded(client, theirs, AUDIO_RETENTION, True)
    assert await granted(mine.user_id) is False
    assert await granted(theirs.user_id) is True
    await recorded(client, mine, AUDIO_RETENTION, True)
    assert await granted(mine.user_id) is True
    assert await granted(mine.user_id, "analytics") is False
    await recorded(client, mine, AUDIO_RETENTION, False)
    assert await granted(mine.user_id) is False
    assert await granted(theirs.user_id) is True
    await recorded(client, mine, AUDIO_RETENTION, True)
    assert await granted(mine.user_id) is True
