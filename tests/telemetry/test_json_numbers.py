"""JSON numbers in a telemetry event, as JSON Schema reads them (found by the contract fuzz)."""

from __future__ import annotations

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from lisan.telemetry.schemas import MAX_MILLISECONDS
from tests.fixtures.contract import assert_matches_contract, contract
from tests.fixtures.devices import register
from tests.fixtures.telemetry import flushed, rows


async def test_integers_written_with_a_zero_fraction_are_integers(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    body = b'{"outcome": "done", "duration_ms": 1800.0, "stage_timings": {"capture": 9e2}}'
    response = await client.post(
        "/v1/telemetry/events",
        content=body,
        headers={**device.headers, "Content-Type": "application/json"},
    )
    assert_matches_contract(response)
    assert response.status_code == 202, response.text
    await flushed(app)
    [row] = await rows(admin_engine)
    assert row.duration_ms == 1800


@pytest.mark.parametrize(
    ("duration", "timing"),
    [("1800.5", "1"), ('"1800"', "1"), ("true", "1"), ("1800", "0.5"), ("2147483648", "1")],
    ids=["fraction", "string", "boolean", "fractional-timing", "past-the-bound"],
)
async def test_numbers_that_are_no_integer_in_range_are_refused(
    client: httpx.AsyncClient, duration: str, timing: str
) -> None:
    device = await register(client)
    body = f'{{"outcome": "done", "duration_ms": {duration}, "stage_timings": {{"a": {timing}}}}}'
    response = await client.post(
        "/v1/telemetry/events",
        content=body.encode(),
        headers={**device.headers, "Content-Type": "application/json"},
    )
    assert_matches_contract(response)
    assert response.status_code == 400, response.text


def test_the_contract_states_the_services_bound_on_milliseconds() -> None:
    """A deliberate deviation (the contract sets no upper bound), written into the contract."""
    event = contract()["components"]["schemas"]["TelemetryEvent"]["properties"]
    assert event["duration_ms"]["maximum"] == MAX_MILLISECONDS
    assert event["stage_timings"]["additionalProperties"]["maximum"] == MAX_MILLISECONDS
