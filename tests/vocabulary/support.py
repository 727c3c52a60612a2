"""Vocabulary test helpers: the routes, and a look behind the API at terms and counts."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import httpx
from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.core.types import utcnow
from lisan.vocabulary.models import VocabularyCount, VocabularyTerm
from tests.contract import assert_matches_contract
from tests.factories import Device

VOCABULARY = "/v1/vocabulary"


def term_path(term_id: object) -> str:
    return f"{VOCABULARY}/{term_id}"


async def create(
    client: httpx.AsyncClient, device: Device, term: Any, kind: Any = "custom"
) -> httpx.Response:
    response = await client.post(
        VOCABULARY, json={"term": term, "kind": kind}, headers=device.headers
    )
    assert_matches_contract(response)
    return response


async def created(
    client: httpx.AsyncClient, device: Device, term: str, kind: str = "custom"
) -> dict[str, Any]:
    """The record of a term that must be created."""
    response = await create(client, device, term, kind)
    assert response.status_code == 201, response.text
    record: dict[str, Any] = response.json()
    return record


async def patch(
    client: httpx.AsyncClient, device: Device, term_id: object, body: Any
) -> httpx.Response:
    response = await client.patch(term_path(term_id), json=body, headers=device.headers)
    assert_matches_contract(response)
    return response


async def remove(client: httpx.AsyncClient, device: Device, term_id: object) -> httpx.Response:
    response = await client.delete(term_path(term_id), headers=device.headers)
    assert_matches_contract(response)
    return response


async def listed(client: httpx.AsyncClient, device: Device) -> list[dict[str, Any]]:
    response = await client.get(VOCABULARY, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 200, response.text
    terms: list[dict[str, Any]] = response.json()["terms"]
    return terms


@dataclass(frozen=True)
class StoredTerm:
    id: uuid.UUID
    term: str
    term_key: str
    kind: str
    created_at: datetime
    updated_at: datetime


async def stored_terms(engine: AsyncEngine, user_id: uuid.UUID) -> list[StoredTerm]:
    """The user's rows, oldest first."""
    statement = (
        select(
            VocabularyTerm.id,
            VocabularyTerm.term,
            VocabularyTerm.term_key,
            VocabularyTerm.kind,
            VocabularyTerm.created_at,
            VocabularyTerm.updated_at,
        )
        .where(VocabularyTerm.user_id == user_id)
        .order_by(VocabularyTerm.created_at, VocabularyTerm.id)
    )
    async with engine.connect() as connection:
        return [StoredTerm(*row) for row in await connection.execute(statement)]


async def stored_count(engine: AsyncEngine, user_id: uuid.UUID) -> int | None:
    """The user's count row (None when there is none)."""
    async with engine.connect() as connection:
        result = await connection.execute(
            select(VocabularyCount.term_count).where(VocabularyCount.user_id == user_id)
        )
        count: int | None = result.scalar_one_or_none()
    return count


async def fill(engine: AsyncEngine, user_id: uuid.UUID, how_many: int) -> None:
    """Give the user `how_many` terms ("filler-0", ...) and the count row to match, behind the
    API (hundreds of calls would only be slow)."""
    now = utcnow()
    rows = [
        {
            "id": uuid.uuid4(),
            "user_id": user_id,
            "term": f"filler-{n}",
            "term_key": f"filler-{n}",
            "kind": "custom",
            "created_at": now,
            "updated_at": now,
        }
        for n in range(how_many)
    ]
    async with engine.begin() as connection:
        if rows:
            await connection.execute(insert(VocabularyTerm), rows)
        await connection.execute(
            insert(VocabularyCount).values(user_id=user_id, term_count=how_many)
        )
