"""Vocabulary terms never reach a log, at any level, whatever the call's outcome."""

from __future__ import annotations

import logging

import httpx
import pytest

from tests.fixtures.devices import register
from tests.fixtures.vocabulary import VOCABULARY, create, created, listed, patch, remove

# Distinctive spellings that nothing else in a log could contain.
TERM = "Zenebech-Q7xw"
RENAMED = "Tsehay-K9vb"
AMHARIC = "ዘነበችቅጭ"
SPELLINGS = [TERM, RENAMED, AMHARIC]


def leaks(record: logging.LogRecord) -> list[str]:
    """The spellings (in any case) found in the record's message or any of its attributes."""
    seen = (record.getMessage() + str(record.__dict__)).casefold()
    return [spelling for spelling in SPELLINGS if spelling.casefold() in seen]


async def test_no_vocabulary_call_logs_a_term(
    client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    device = await register(client)
    other = await register(client)
    caplog.set_level(logging.DEBUG)

    record = await created(client, device, f"  {TERM} ")
    amharic = await created(client, device, AMHARIC, "contact")
    assert (await create(client, device, TERM.upper())).status_code == 409
    assert (await create(client, device, TERM + "\u0007")).status_code == 400
    assert (await create(client, device, TERM * 5)).status_code == 400
    assert (await create(client, device, TERM, "person")).status_code == 400
    raw = await client.post(
        VOCABULARY, content=b'{"term": "' + TERM.encode() + b'", ', headers=device.headers
    )
    assert raw.status_code == 400
    assert (await patch(client, device, record["term_id"], {"term": RENAMED})).status_code == 200
    assert (await patch(client, device, record["term_id"], {"term": AMHARIC})).status_code == 409
    assert (
        await patch(client, device, record["term_id"], {"term": "a\nb" + TERM})
    ).status_code == 400
    assert (await patch(client, other, record["term_id"], {"term": TERM})).status_code == 404
    assert [t["term"] for t in await listed(client, device)] == [RENAMED, AMHARIC]
    assert (await remove(client, device, amharic["term_id"])).status_code == 204
    assert (await remove(client, other, record["term_id"])).status_code == 404

    assert any(r.name == "lisan.access" for r in caplog.records), "the capture saw no log"
    leaked = [(r.name, r.levelname, leaks(r)) for r in caplog.records if leaks(r)]
    assert leaked == []


def test_the_leak_check_would_see_a_term_in_a_record() -> None:
    in_message = logging.LogRecord("x", logging.DEBUG, "f", 1, "saw %s", (TERM,), None)
    in_extra = logging.LogRecord("x", logging.DEBUG, "f", 1, "saw", (), None)
    in_extra.detail = {"value": AMHARIC}
    assert leaks(in_message) == [TERM]
    assert leaks(in_extra) == [AMHARIC]
