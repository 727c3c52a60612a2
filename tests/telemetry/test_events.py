"""POST /v1/telemetry/events: validation, attribution, completing a command's row."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from lisan.db.types import utcnow
from lisan.telemetry.models import CommandEvent
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, register
from tests.fixtures.telemetry import flushed, rows

EVENT: dict[str, Any] = {
    "outcome": "done",
    "duration_ms": 1800,
    "confidence": 0.82,
    "stage_timings": {"capture": 900, "upload": 300, "execute": 600},
}


async def post(client: httpx.AsyncClient, device: Device, body: Any) -> httpx.Response:
    response = await client.post("/v1/telemetry/events", json=body, headers=device.headers)
    assert_matches_contract(response)
    return response


async def test_an_event_is_buffered_then_stored_for_the_sessions_user(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    response = await post(client, device, EVENT)
    assert response.status_code == 202
    assert response.json() == {"status": "buffered"}
    await flushed(app)
    [row] = await rows(admin_engine)
    assert row.user_id == device.user_id
    assert (row.outcome, row.duration_ms, row.confidence) == ("done", 1800, 0.82)
    assert row.client_timings == EVENT["stage_timings"]
    assert row.status is None  # no server side: no command of this id


@pytest.mark.parametrize(
    "change",
    [
        {"user_id": str(uuid.uuid4())},
        {"userId": "someone"},
        {"user": "abebe"},
        {"outcome": "exploded"},
        {"outcome": None},
        {"duration_ms": -1},
        {"duration_ms": 1.5},
        {"duration_ms": "100"},
        {"duration_ms": 2**31},
        {"confidence": 1.01},
        {"confidence": -0.01},
        {"confidence": "0.5"},
        {"confidence": None},
        {"request_id": "not-a-uuid"},
        {"request_id": None},
        {"stage_timings": {f"s{i}": 1 for i in range(17)}},
        {"stage_timings": {"asr": -5}},
        {"stage_timings": {"asr": 2.5}},
        {"stage_timings": {"asr": True}},
        {"stage_timings": []},
        {"stage_timings": None},
    ],
)
async def test_invalid_events_are_400_and_never_buffered(
    app: LisanApp, client: httpx.AsyncClient, change: dict[str, Any]
) -> None:
    device = await register(client)
    response = await post(client, device, {**EVENT, **change})
    assert response.status_code == 400, change
    assert list(response.json()) == ["error"]
    assert app.services.telemetry.stats.accepted == 0


@pytest.mark.parametrize("missing", ["outcome", "duration_ms", "stage_timings"])
async def test_required_fields(client: httpx.AsyncClient, missing: str) -> None:
    device = await register(client)
    body = {k: v for k, v in EVENT.items() if k != missing}
    assert (await post(client, device, body)).status_code == 400


async def test_sixteen_stages_and_the_bounds_are_accepted(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    body = {
        "outcome": "cancelled",
        "duration_ms": 0,
        "confidence": 1,
        "stage_timings": {f"stage-{i}": i for i in range(16)},
    }
    assert (await post(client, device, body)).status_code == 202
    await flushed(app)
    assert len((await rows(admin_engine))[0].client_timings) == 16


async def test_credentials_are_required(client: httpx.AsyncClient) -> None:
    response = await client.post("/v1/telemetry/events", json=EVENT)
    assert_matches_contract(response)
    assert response.status_code == 401


async def _command_event(engine: AsyncEngine, user_id: uuid.UUID) -> uuid.UUID:
    command_id = uuid.uuid4()
    async with engine.begin() as connection:
        await connection.execute(
            insert(CommandEvent).values(
                id=command_id,
                user_id=user_id,
                created_at=utcnow(),
                status="ACCEPTED",
                server_timings={"transcribe": 410, "plan": 620, "validate": 2, "total": 1040},
            )
        )
    return command_id


async def test_an_event_naming_its_users_command_completes_that_row(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    command_id = await _command_event(admin_engine, device.user_id)
    assert (await post(client, device, {**EVENT, "request_id": str(command_id)})).status_code == 202
    await flushed(app)
    [row] = await rows(admin_engine)
    assert row.id == command_id
    assert (row.status, row.server_timings["total"]) == ("ACCEPTED", 1040)
    assert (row.outcome, row.duration_ms) == ("done", 1800)
    assert row.reported_at is not None


async def test_an_event_naming_another_users_command_is_dropped_never_merged(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    owner, intruder = await register(client), await register(client)
    command_id = await _command_event(admin_engine, owner.user_id)
    body = {**EVENT, "request_id": str(command_id)}
    assert (await post(client, intruder, body)).status_code == 202
    writer = await flushed(app)
    [row] = await rows(admin_engine)
    assert row.user_id == owner.user_id
    assert row.outcome is None, "the owner's row is untouched"
    assert writer.stats.dropped_foreign == 1


async def test_an_event_naming_an_unknown_request_id_is_stored_under_it(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    request_id = uuid.uuid4()
    await post(client, device, {**EVENT, "request_id": str(request_id)})
    await post(client, device, {**EVENT, "request_id": str(request_id), "outcome": "failed"})
    await flushed(app)
    [row] = await rows(admin_engine)
    assert (row.id, row.user_id) == (request_id, device.user_id)
    assert row.outcome == "failed", "the later report of one command wins"


async def test_events_hold_no_transcript_or_audio(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    """The stored row has no place for either: its columns are the contract's event fields."""
    device = await register(client)
    await post(client, device, EVENT)
    await flushed(app)
    columns = set(CommandEvent.__table__.columns.keys())
    assert not {c for c in columns if "transcript" in c or "audio" in c}


@pytest.mark.parametrize("name", ["x" * 65, "", "stage name", "étape", "a\nb"])
async def test_a_stage_name_is_short_and_plain(client: Any, name: str) -> None:
    """A stage name is bounded and plain: each one sits in the buffer until written."""
    device = await register(client)
    body = {"outcome": "done", "duration_ms": 5, "stage_timings": {name: 1}}
    response = await client.post("/v1/telemetry/events", json=body, headers=device.headers)
    assert response.status_code == 400
    assert "stage name" in response.json()["error"]
