"""`terms_for`: the transcriber's bias list, the user's terms as written, oldest first."""

from __future__ import annotations

import uuid

import httpx

from lisan.app import LisanApp
from lisan.vocabulary.service import terms_for
from tests.fixtures.devices import register
from tests.fixtures.vocabulary import created, patch


async def bias_list(app: LisanApp, user_id: uuid.UUID) -> list[str]:
    async with app.services.resources.database.transaction() as db:
        return await terms_for(db, user_id)


async def test_terms_for_lists_the_users_display_terms_oldest_first(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    other = await register(client)
    first = await created(client, device, "  Abebe ")
    await created(client, device, "ቴሌብር", "app")
    await created(client, other, "Kebede")
    await created(client, device, "CBE Birr", "app")
    assert await bias_list(app, device.user_id) == ["Abebe", "ቴሌብር", "CBE Birr"]
    # A rename keeps the term's place (its age is its creation).
    assert (await patch(client, device, first["term_id"], {"term": "ABEBE"})).status_code == 200
    assert await bias_list(app, device.user_id) == ["ABEBE", "ቴሌብር", "CBE Birr"]
    assert await bias_list(app, other.user_id) == ["Kebede"]


async def test_terms_for_a_user_without_terms_is_empty(app: LisanApp) -> None:
    assert await bias_list(app, uuid.uuid4()) == []
