"""The vocabulary routes: create, list oldest first, rename or re-kind, delete; terms cleaned on
input, unique per user ignoring case, and invisible to every other user."""

from __future__ import annotations

import uuid
from datetime import datetime

import httpx
import pytest
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

AMHARIC_TERMS = ["አበበ", "ቴሌብር"]


def moment(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


async def test_create_answers_201_with_the_term_record(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    response = await create(client, device, "Abebe", "contact")
    assert response.status_code == 201
    record = response.json()
    assert set(record) == {"term_id", "term", "kind", "created_at", "updated_at"}
    assert (record["term"], record["kind"]) == ("Abebe", "contact")
    assert record["created_at"] == record["updated_at"]
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (str(row.id), row.term, row.term_key, row.kind) == (
        record["term_id"],
        "Abebe",
        "abebe",
        "contact",
    )
    assert await stored_count(admin_engine, device.user_id) == 1


@pytest.mark.parametrize("kind", ["contact", "app", "custom"])
async def test_every_vocabulary_kind_is_accepted(client: httpx.AsyncClient, kind: str) -> None:
    device = await register(client)
    record = await created(client, device, "Telebirr", kind)
    assert record["kind"] == kind
    assert [term["kind"] for term in await listed(client, device)] == [kind]


async def test_a_new_user_has_an_empty_vocabulary(client: httpx.AsyncClient) -> None:
    device = await register(client)
    assert await listed(client, device) == []


async def test_the_list_is_oldest_first(client: httpx.AsyncClient) -> None:
    device = await register(client)
    records = [await created(client, device, term) for term in ("Zebra", "apple", "Mango")]
    terms = await listed(client, device)
    assert terms == records
    assert [term["term"] for term in terms] == ["Zebra", "apple", "Mango"]


async def test_terms_created_at_the_same_instant_are_listed_by_id(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await fill(admin_engine, device.user_id, 8)  # all with one created_at
    ids = [uuid.UUID(term["term_id"]) for term in await listed(client, device)]
    assert len(ids) == 8
    assert ids == sorted(ids)


async def test_a_user_sees_only_their_own_terms(client: httpx.AsyncClient) -> None:
    device = await register(client)
    other = await register(client)
    mine = await created(client, device, "Abebe")
    theirs = await created(client, other, "Kebede")
    assert await listed(client, device) == [mine]
    assert await listed(client, other) == [theirs]


@pytest.mark.parametrize("term", AMHARIC_TERMS)
async def test_amharic_terms_go_through_every_route(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, term: str
) -> None:
    device = await register(client)
    record = await created(client, device, term, "contact")
    assert record["term"] == term
    assert [t["term"] for t in await listed(client, device)] == [term]
    duplicate = await create(client, device, f"  {term} ")
    assert duplicate.status_code == 409
    renamed = await patch(client, device, record["term_id"], {"term": term + "ም"})
    assert renamed.status_code == 200
    assert renamed.json()["term"] == term + "ም"
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (row.term, row.term_key) == (term + "ም", term + "ም")
    assert (await remove(client, device, record["term_id"])).status_code == 204
    assert await listed(client, device) == []


@pytest.mark.parametrize(
    ("sent", "kept"),
    [
        ("  Abebe  ", "Abebe"),
        ("\u2003Abebe\u00a0", "Abebe"),
        ("\u3000ቴሌብር\ufeff", "ቴሌብር"),
        ("Cafe\u0301", "Caf\u00e9"),  # NFC composes e + combining acute
        ("Ko\u0308nig Abebe", "K\u00f6nig Abebe"),
        ("Inner  spaces kept", "Inner  spaces kept"),
    ],
)
async def test_terms_are_trimmed_and_nfc_normalised(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, sent: str, kept: str
) -> None:
    device = await register(client)
    record = await created(client, device, sent)
    assert record["term"] == kept
    [row] = await stored_terms(admin_engine, device.user_id)
    assert row.term == kept


@pytest.mark.parametrize(
    "term",
    [
        "x" * 64,
        " " + "x" * 62 + " ",
        "\u3000" + "በ" * 62 + " ",  # 62 Ethiopic characters, a blank either side: 64 sent
        "e\u0301" * 32,  # 64 code points sent, 32 once composed
        "y",
    ],
    ids=["64", "64-padded", "64-ethiopic-padded", "64-composed", "1"],
)
async def test_1_to_64_characters_once_trimmed_and_normalised(
    client: httpx.AsyncClient, term: str
) -> None:
    device = await register(client)
    record = await created(client, device, term)
    assert 1 <= len(record["term"]) <= 64


@pytest.mark.parametrize(
    "term",
    [
        "   " + "x" * 64 + "   ",
        "\u3000" + "በ" * 64 + " ",
        "e\u0301" * 64,  # 128 code points sent, 64 once composed
    ],
    ids=["64-padded", "64-ethiopic-padded", "64-composed"],
)
async def test_more_than_64_characters_sent_are_refused_whatever_trimming_leaves(
    client: httpx.AsyncClient, term: str
) -> None:
    """The bound is the contract's `maxLength: 64`, on what was sent (code points): a term
    that only trimming or composing would bring under it is a 400."""
    device = await register(client)
    response = await create(client, device, term)
    assert response.status_code == 400, response.text


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Abebe", "abebe"),
        ("abebe", "ABEBE"),
        ("Abebe", "  aBeBe "),
        ("Straße", "STRASSE"),  # case folding, not just lower-casing
        ("Caf\u00e9", "CAFE\u0301"),  # equal once normalised
        ("ቴሌብር", "ቴሌብር"),
    ],
)
async def test_a_term_is_unique_per_user_ignoring_case(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, first: str, second: str
) -> None:
    device = await register(client)
    original = await created(client, device, first, "contact")
    duplicate = await create(client, device, second, "app")
    assert duplicate.status_code == 409
    assert_retry_after(duplicate)
    assert set(duplicate.json()) == {"error"}
    assert await listed(client, device) == [original]
    assert len(await stored_terms(admin_engine, device.user_id)) == 1
    assert await stored_count(admin_engine, device.user_id) == 1, "the refused create's count"


async def test_another_user_may_hold_the_same_term(client: httpx.AsyncClient) -> None:
    device = await register(client)
    other = await register(client)
    await created(client, device, "Abebe")
    theirs = await created(client, other, "ABEBE")
    assert theirs["term"] == "ABEBE"


async def test_patch_renames_and_moves_updated_at(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe", "contact")
    response = await patch(client, device, record["term_id"], {"term": "  Kebede "})
    assert response.status_code == 200
    updated = response.json()
    assert updated["term_id"] == record["term_id"]
    assert (updated["term"], updated["kind"]) == ("Kebede", "contact")
    assert updated["created_at"] == record["created_at"]
    assert moment(updated["updated_at"]) > moment(record["updated_at"])
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (row.term, row.term_key, row.kind) == ("Kebede", "kebede", "contact")
    assert row.updated_at == moment(updated["updated_at"])
    assert await listed(client, device) == [updated]


async def test_patch_changes_the_kind_alone(client: httpx.AsyncClient) -> None:
    device = await register(client)
    record = await created(client, device, "Telebirr", "custom")
    response = await patch(client, device, record["term_id"], {"kind": "app"})
    assert response.status_code == 200
    updated = response.json()
    assert (updated["term"], updated["kind"]) == ("Telebirr", "app")
    assert moment(updated["updated_at"]) > moment(record["updated_at"])


async def test_patch_changes_term_and_kind_together(client: httpx.AsyncClient) -> None:
    device = await register(client)
    record = await created(client, device, "Telebirr", "custom")
    response = await patch(client, device, record["term_id"], {"term": "ቴሌብር", "kind": "app"})
    assert response.status_code == 200
    assert (response.json()["term"], response.json()["kind"]) == ("ቴሌብር", "app")


async def test_patch_may_change_only_the_case_of_its_own_term(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    record = await created(client, device, "abebe")
    response = await patch(client, device, record["term_id"], {"term": "Abebe"})
    assert response.status_code == 200
    assert response.json()["term"] == "Abebe"
    [row] = await stored_terms(admin_engine, device.user_id)
    assert (row.term, row.term_key) == ("Abebe", "abebe")


async def test_patch_onto_another_term_of_the_user_is_409_and_changes_nothing(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    abebe = await created(client, device, "Abebe")
    kebede = await created(client, device, "Kebede")
    before = await stored_terms(admin_engine, device.user_id)
    response = await patch(client, device, kebede["term_id"], {"term": "ABEBE", "kind": "app"})
    assert response.status_code == 409
    assert_retry_after(response)
    assert await stored_terms(admin_engine, device.user_id) == before
    assert await listed(client, device) == [abebe, kebede]


async def test_patch_onto_a_term_another_user_holds_is_fine(client: httpx.AsyncClient) -> None:
    device = await register(client)
    other = await register(client)
    await created(client, other, "Abebe")
    record = await created(client, device, "Kebede")
    response = await patch(client, device, record["term_id"], {"term": "abebe"})
    assert response.status_code == 200


async def test_a_renamed_term_frees_its_old_name(client: httpx.AsyncClient) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    assert (await patch(client, device, record["term_id"], {"term": "Kebede"})).status_code == 200
    again = await created(client, device, "ABEBE")
    assert [t["term"] for t in await listed(client, device)] == ["Kebede", "ABEBE"]
    assert again["term"] == "ABEBE"


async def test_delete_answers_204_and_removes_the_term(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    keep = await created(client, device, "Kebede")
    record = await created(client, device, "Abebe")
    assert await stored_count(admin_engine, device.user_id) == 2
    response = await remove(client, device, record["term_id"])
    assert response.status_code == 204
    assert response.content == b""
    assert await listed(client, device) == [keep]
    assert [row.term for row in await stored_terms(admin_engine, device.user_id)] == ["Kebede"]
    assert await stored_count(admin_engine, device.user_id) == 1
    again = await remove(client, device, record["term_id"])
    assert again.status_code == 404
    assert await stored_count(admin_engine, device.user_id) == 1


async def test_a_deleted_term_may_be_added_again(client: httpx.AsyncClient) -> None:
    device = await register(client)
    record = await created(client, device, "Abebe")
    assert (await remove(client, device, record["term_id"])).status_code == 204
    again = await created(client, device, "abebe")
    assert again["term_id"] != record["term_id"]


async def test_another_users_term_is_404_like_a_missing_one(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    other = await register(client)
    theirs = await created(client, other, "Abebe")
    missing = str(uuid.uuid4())
    for term_id in (theirs["term_id"], missing):
        patched = await patch(client, device, term_id, {"term": "Kebede"})
        deleted = await remove(client, device, term_id)
        assert (patched.status_code, deleted.status_code) == (404, 404)
        assert patched.json() == deleted.json() == {"error": "no such vocabulary term"}
    assert await listed(client, other) == [theirs]
    assert await stored_count(admin_engine, other.user_id) == 1


@pytest.mark.parametrize(
    "term_id", ["not-a-uuid", "123", "00000000-0000-0000-0000", "%20", "x" * 300]
)
async def test_a_term_id_that_is_not_a_uuid_is_404(client: httpx.AsyncClient, term_id: str) -> None:
    device = await register(client)
    await created(client, device, "Abebe")
    patched = await patch(client, device, term_id, {"kind": "app"})
    deleted = await remove(client, device, term_id)
    assert (patched.status_code, deleted.status_code) == (404, 404)
    assert set(patched.json()) == set(deleted.json()) == {"error"}
    assert [t["kind"] for t in await listed(client, device)] == ["custom"]


async def test_patch_with_an_unknown_id_and_a_bad_body_is_still_a_400(
    client: httpx.AsyncClient,
) -> None:
    device = await register(client)
    response = await patch(client, device, uuid.uuid4(), {})
    assert response.status_code == 400
