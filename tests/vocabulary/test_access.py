"""A vocabulary call acts on the session's user, whatever user id the request names. Who may
call the routes at all (401, 403, 409, 429) is walked with every user route in
tests/auth/test_account_status.py."""

from __future__ import annotations

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.devices import register
from tests.fixtures.vocabulary import VOCABULARY, stored_terms


async def test_the_user_comes_from_the_session_never_the_request(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    headers = {**device.headers, "X-User-ID": str(other.user_id)}
    response = await client.post(
        VOCABULARY,
        params={"user_id": str(other.user_id)},
        json={"term": "Abebe", "kind": "custom"},
        headers=headers,
    )
    assert response.status_code == 201
    assert len(await stored_terms(admin_engine, device.user_id)) == 1
    assert await stored_terms(admin_engine, other.user_id) == []
