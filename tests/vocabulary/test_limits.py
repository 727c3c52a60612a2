"""At most 500 terms a user, and one term per case-folded spelling: held by the database, so
they hold under real concurrency (requests racing through the app's pool, each on its own
database connection), on SQLite and on PostgreSQL alike."""

from __future__ import annotations

import asyncio
from collections import Counter

import httpx
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.answers import assert_retry_after
from tests.fixtures.devices import register
from tests.fixtures.vocabulary import (
    create,
    created,
    fill,
    listed,
    patch,
    remove,
    stored_count,
    stored_terms,
)

RACERS = 10
CASES = [
    "Abebe",
    "ABEBE",
    "abebe",
    "aBEBE",
    "AbEbE",
    "abebE",
    "ABEbe",
    "  abebe",
    "Abebe ",
    "aBeBe",
]


async def test_the_500th_term_is_taken_and_the_501st_refused(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await fill(admin_engine, device.user_id, 499)
    last = await created(client, device, "Abebe")
    assert await stored_count(admin_engine, device.user_id) == 500
    full = await create(client, device, "Kebede")
    assert full.status_code == 409
    assert_retry_after(full)
    assert full.json() == {"error": "vocabulary full: at most 500 terms"}
    assert await stored_count(admin_engine, device.user_id) == 500
    assert len(await stored_terms(admin_engine, device.user_id)) == 500
    # Deleting one makes room for exactly one.
    assert (await remove(client, device, last["term_id"])).status_code == 204
    assert await stored_count(admin_engine, device.user_id) == 499
    await created(client, device, "Kebede")
    assert (await create(client, device, "Almaz")).status_code == 409


async def test_the_limit_is_per_user(client: httpx.AsyncClient, admin_engine: AsyncEngine) -> None:
    device = await register(client)
    other = await register(client)
    await fill(admin_engine, device.user_id, 500)
    assert (await create(client, device, "Abebe")).status_code == 409
    await created(client, other, "Abebe")
    assert await stored_count(admin_engine, other.user_id) == 1


async def test_the_count_follows_creates_and_deletes_not_renames(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    assert await stored_count(admin_engine, device.user_id) is None
    records = [await created(client, device, term) for term in ("Abebe", "Kebede", "ቴሌብር")]
    assert await stored_count(admin_engine, device.user_id) == 3
    renamed = await patch(client, device, records[0]["term_id"], {"term": "Almaz", "kind": "app"})
    assert renamed.status_code == 200
    assert await stored_count(admin_engine, device.user_id) == 3
    for record in records:
        assert (await remove(client, device, record["term_id"])).status_code == 204
    assert await stored_count(admin_engine, device.user_id) == 0
    # A delete that finds nothing does not take the count below zero.
    assert (await remove(client, device, records[0]["term_id"])).status_code == 404
    assert await stored_count(admin_engine, device.user_id) == 0
    await created(client, device, "Abebe")
    assert await stored_count(admin_engine, device.user_id) == 1


async def test_racing_creates_of_one_term_in_many_cases_store_it_once(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    responses = await asyncio.gather(*(create(client, device, term) for term in CASES))
    statuses = Counter(response.status_code for response in responses)
    assert statuses == {201: 1, 409: RACERS - 1}
    for response in responses:
        if response.status_code == 409:
            assert_retry_after(response)
    [winner] = [response.json() for response in responses if response.status_code == 201]
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (str(row.id), row.term_key) == (winner["term_id"], "abebe")
    assert await stored_count(admin_engine, device.user_id) == 1
    assert await listed(client, device) == [winner]


async def test_racing_creates_for_the_last_place_let_exactly_one_in(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await fill(admin_engine, device.user_id, 499)
    terms = [f"racer-{n}" for n in range(RACERS)]
    responses = await asyncio.gather(*(create(client, device, term) for term in terms))
    statuses = Counter(response.status_code for response in responses)
    assert statuses == {201: 1, 409: RACERS - 1}
    for response in responses:
        if response.status_code == 409:
            assert_retry_after(response)
            assert response.json() == {"error": "vocabulary full: at most 500 terms"}
    rows = await stored_terms(admin_engine, device.user_id)
    assert len(rows) == 500 == await stored_count(admin_engine, device.user_id)
    assert sum(row.term.startswith("racer-") for row in rows) == 1


async def test_racing_first_creates_of_a_new_user_are_all_counted(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)  # no count row yet: every racer tries to make it
    terms = [f"first-{n}" for n in range(RACERS)]
    responses = await asyncio.gather(*(create(client, device, term) for term in terms))
    assert [response.status_code for response in responses] == [201] * RACERS
    assert len(await stored_terms(admin_engine, device.user_id)) == RACERS
    assert await stored_count(admin_engine, device.user_id) == RACERS


async def test_racing_deletes_of_one_term_count_it_once(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    keep = await created(client, device, "Kebede")
    record = await created(client, device, "Abebe")
    responses = await asyncio.gather(
        *(remove(client, device, record["term_id"]) for _ in range(RACERS))
    )
    statuses = Counter(response.status_code for response in responses)
    assert statuses == {204: 1, 404: RACERS - 1}
    assert await listed(client, device) == [keep]
    assert await stored_count(admin_engine, device.user_id) == 1


async def test_racing_renames_onto_each_others_names_never_fail_the_server(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    terms = [await created(client, device, f"name-{n}") for n in range(RACERS)]
    # Every term asks for its neighbour's name at once: some must lose, none may 500.
    renames = [
        patch(client, device, term["term_id"], {"term": f"NAME-{(n + 1) % RACERS}"})
        for n, term in enumerate(terms)
    ]
    responses = await asyncio.gather(*renames)

    assert {response.status_code for response in responses} <= {200, 409}
    keys = [row.term_key for row in await stored_terms(admin_engine, device.user_id)]
    assert len(keys) == len(set(keys)) == RACERS
    assert await stored_count(admin_engine, device.user_id) == RACERS
