"""Bad vocabulary bodies: 400 with `{"error"}` (never 422), no partial writes, the term never
echoed. What every route refuses alike (not JSON, not an object, an unknown field, over 16 KB) is
in the table of refused bodies (tests/server/test_invalid_bodies.py)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, register
from tests.fixtures.vocabulary import (
    VOCABULARY,
    create,
    created,
    patch,
    stored_count,
    stored_terms,
)

# Distinctive, so a message that echoes it is caught.
SECRET = "Qorqoro"

BAD_TERMS: list[Any] = [
    12,
    12.5,
    True,
    None,
    [SECRET],
    {"term": SECRET},
    "",
    "   ",
    "\u00a0\u3000\ufeff",
    SECRET + "x" * (65 - len(SECRET)),
    "  " + SECRET + "በ" * (65 - len(SECRET)) + "  ",
    SECRET + "\u0007",
    "a\nb" + SECRET,
    SECRET + "\n",  # a control character is refused even where trimming would drop it
    "\t" + SECRET,
    SECRET + "\u0000",
    SECRET + "\u001b[31m",
    SECRET + "\u007f",
    SECRET + "\u0085",
    SECRET + "\u009f",
    SECRET + "\u2028tail",
    SECRET + "\u2029tail",
]
BAD_TERM_IDS = [
    "number",
    "float",
    "boolean",
    "null",
    "array",
    "object",
    "empty",
    "blank",
    "unicode-blanks",
    "65-chars",
    "65-chars-trimmed",
    "bell",
    "newline-inside",
    "newline-trailing",
    "tab-leading",
    "nul",
    "escape",
    "del",
    "nel",
    "c1",
    "line-separator",
    "paragraph-separator",
]

BAD_CREATE_BODIES: list[Any] = [
    {"term": SECRET, "kind": "custom", "user_id": "00000000-0000-0000-0000-000000000000"},
    {"term": SECRET},
    {"kind": "custom"},
    {"term": SECRET, "kind": "person"},
    {"term": SECRET, "kind": "Contact"},
    {"term": SECRET, "kind": None},
    {"term": SECRET, "kind": 1},
]

BAD_UPDATE_BODIES: list[Any] = [
    {"kind": "app", "term_id": "x"},
    {"term": None},
    {"kind": None},
    {"term": SECRET, "kind": None},
    {"kind": "person"},
    {"term": 12},
    {"term": "   "},
    {"term": SECRET + "x" * 60},
    {"term": SECRET + "\u0007"},
    {"term": "a\nb"},
]


def assert_refused(response: httpx.Response) -> None:
    assert response.status_code == 400, response.text
    assert_matches_contract(response)
    body = response.json()
    assert set(body) == {"error"}
    assert SECRET.casefold() not in response.text.casefold(), "the term was echoed"


async def post_raw(client: httpx.AsyncClient, device: Device, content: bytes) -> httpx.Response:
    headers = {**device.headers, "Content-Type": "application/json"}
    response = await client.post(VOCABULARY, content=content, headers=headers)
    assert_matches_contract(response)
    return response


@pytest.mark.parametrize("term", BAD_TERMS, ids=BAD_TERM_IDS)
async def test_a_bad_term_is_refused_on_create(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, term: Any
) -> None:
    device = await register(client)
    assert_refused(await create(client, device, term))
    assert await stored_terms(admin_engine, device.user_id) == []
    assert await stored_count(admin_engine, device.user_id) is None


@pytest.mark.parametrize("term", BAD_TERMS, ids=BAD_TERM_IDS)
async def test_a_bad_term_is_refused_on_patch(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, term: Any
) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    before = await stored_terms(admin_engine, device.user_id)
    assert_refused(await patch(client, device, record["term_id"], {"term": term}))
    assert await stored_terms(admin_engine, device.user_id) == before


@pytest.mark.parametrize("body", BAD_CREATE_BODIES)
async def test_a_bad_create_body_is_refused(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, body: Any
) -> None:
    device = await register(client)
    assert_refused(await post_raw(client, device, json.dumps(body).encode()))
    assert await stored_terms(admin_engine, device.user_id) == []


@pytest.mark.parametrize("body", BAD_UPDATE_BODIES)
async def test_a_bad_update_body_is_refused(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, body: Any
) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe", "contact")
    before = await stored_terms(admin_engine, device.user_id)
    assert_refused(await patch(client, device, record["term_id"], body))
    assert await stored_terms(admin_engine, device.user_id) == before


async def test_an_empty_patch_is_400(client: httpx.AsyncClient) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    response = await patch(client, device, record["term_id"], {})
    assert_refused(response)


async def test_the_length_bound_holds_for_what_was_sent_not_only_once_trimmed(
    client: httpx.AsyncClient,
) -> None:
    """`openapi.yaml`'s `maxLength: 64` is the raw value's: 65 characters sent are a 400 even
    when trimming their spaces would leave 63; 64 sent, trimmed to 62, are stored."""
    device = await register(client)
    too_long = await create(client, device, " " + "t" * 63 + " ")
    assert too_long.status_code == 400, too_long.text
    fits = await create(client, device, " " + "t" * 62 + " ")
    assert fits.status_code == 201, fits.text
    assert fits.json()["term"] == "t" * 62
