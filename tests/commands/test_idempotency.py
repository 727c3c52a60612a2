"""X-Idempotency-Key, kept in the database: a retry with the same key and body replays the first
response byte for byte (`Idempotent-Replayed: true`) without running or billing again; another
body is 422; a duplicate that arrives while the first runs waits for its answer, on any server
process, or gets 409 with Retry-After past its bound; a 502/503/504 is not final; a claim whose
owner died is taken over once its lease has passed."""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import Callable, Coroutine
from datetime import timedelta
from typing import Any

import httpx
import pytest
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from lisan.commands import idempotency, service
from lisan.commands.models import IdempotencyRecord
from lisan.core.settings import Settings
from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.testing.openai_script import DEFAULT_PLAN, DEFAULT_TRANSCRIPTION, Answer
from lisan.testing.openai_server import FakeOpenAI
from lisan.testing.speech import silence
from tests.fixtures.answers import assert_error, assert_retry_after
from tests.fixtures.commands import app_with, command_body, post, raw_body
from tests.fixtures.devices import Device, ready_device, register
from tests.fixtures.rows import command_rows

REPLAYED = "idempotent-replayed"


def replayed(response: httpx.Response) -> bool:
    return bool(response.headers.get(REPLAYED) == "true")


async def hold_key(
    engine: AsyncEngine,
    device: Device,
    key: uuid.UUID,
    raw: bytes,
    *,
    lease: timedelta,
    state: str = "running",
    expires: timedelta = timedelta(hours=24),
    response: bytes | None = None,
) -> None:
    """An idempotency record as a server process leaves it while it runs the command (or,
    with `state="done"`, once it answered `response`)."""
    now = utcnow()
    async with engine.begin() as connection:
        await connection.execute(
            insert(IdempotencyRecord).values(
                user_id=device.user_id,
                key=key,
                body_hash=hashlib.sha256(raw).digest(),
                state=state,
                lease_until=now + lease,
                response_status=200 if response is not None else None,
                response_body=response,
                created_at=now,
                expires_at=now + expires,
            )
        )


@pytest.mark.parametrize("audio", ["speech", "silence"], ids=["ACCEPTED", "REPROMPT"])
async def test_a_retry_replays_the_first_answer_byte_for_byte_without_running_again(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    audio: str,
) -> None:
    body = command_body(silence(1.0)) if audio == "silence" else command_body()
    raw, key = raw_body(body), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        first = await post(client, device.headers, raw, key)
        calls, rows = fake_openai.calls, await command_rows(admin_engine)
        again = [await post(client, device.headers, raw, key) for _ in range(2)]
    assert first.status_code == 200, first.text
    assert not replayed(first)
    for retry in again:
        assert retry.status_code == 200
        assert retry.content == first.content
        assert replayed(retry)
        assert retry.headers["content-type"] == "application/json"
    assert fake_openai.calls == calls, "a replay runs nothing"
    assert await command_rows(admin_engine) == rows, "no second bill, no second event"
    assert rows["command_events"] == 1
    assert rows["idempotency_records"] == 1
    assert rows["billed_commands"] == (1 if audio == "speech" else 0)


async def test_a_replay_outlives_the_server_process_that_answered(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        first = await post(client, device.headers, raw, key)
    async with app_with(settings_factory, fake_openai.base_url) as restarted:
        again = await post(restarted, device.headers, raw, key)
    assert again.content == first.content
    assert replayed(again)
    assert fake_openai.transcriptions.calls == 1


@pytest.mark.parametrize(
    "change",
    [
        lambda body: body.update(language="am-ET"),
        lambda body: body["screen_context"].update(current_package="com.google.android.gm"),
        lambda body: body.update(duration_ms=body["duration_ms"] - 1),
    ],
    ids=["language", "screen", "duration"],
)
async def test_the_same_key_with_another_body_is_422(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    change: Callable[[dict[str, object]], None],
) -> None:
    key = uuid.uuid4()
    other = command_body()
    change(other)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        first = await post(client, device.headers, raw_body(command_body()), key)
        reused = await post(client, device.headers, raw_body(other), key)
        still = await post(client, device.headers, raw_body(command_body()), key)
    assert first.status_code == 200
    assert_error(reused, 422)
    assert still.content == first.content
    assert replayed(still)
    assert fake_openai.transcriptions.calls == 1


async def test_keys_belong_to_their_user(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        mine, theirs = await ready_device(client), await ready_device(client)
        first = await post(client, mine.headers, raw, key)
        second = await post(client, theirs.headers, raw, key)
    assert first.status_code == second.status_code == 200
    assert not replayed(second)
    assert first.json()["command_id"] != second.json()["command_id"]
    assert fake_openai.transcriptions.calls == 2


async def test_fifty_concurrent_duplicates_run_once(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    fake_openai.completions.then(Answer.plan(DEFAULT_PLAN, delay_s=0.5))
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        responses = await asyncio.gather(
            *(post(client, device.headers, raw, key) for _ in range(50))
        )
    assert [r.status_code for r in responses] == [200] * 50
    assert len({r.content for r in responses}) == 1
    assert sum(replayed(r) for r in responses) == 49
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 1)
    rows = await command_rows(admin_engine)
    assert (rows["command_events"], rows["billed_commands"]) == (1, 1)


async def test_a_duplicate_on_another_server_process_waits_for_the_first(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(Answer.plan(DEFAULT_PLAN, delay_s=0.8))
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with (
        app_with(settings_factory, fake_openai.base_url) as first_process,
        app_with(settings_factory, fake_openai.base_url) as second_process,
    ):
        device = await ready_device(first_process)
        running = asyncio.create_task(post(first_process, device.headers, raw, key))
        async with asyncio.timeout(5):
            # The fake server offers no event to wait on: poll its count of plan requests.
            while fake_openai.completions.calls == 0:  # noqa: ASYNC110
                await asyncio.sleep(0.01)
        duplicate = await post(second_process, device.headers, raw, key)
        original = await running
    assert original.status_code == 200
    assert not replayed(original)
    assert duplicate.content == original.content
    assert replayed(duplicate)
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 1)


FAILURES = {
    "503": ("transcriptions", Answer.error(500), 503),
    "504": ("transcriptions", Answer.json(DEFAULT_TRANSCRIPTION, delay_s=3.0), 504),
    "502": ("completions", Answer.malformed(), 502),
}


@pytest.mark.parametrize(
    ("endpoint", "fault", "status"), list(FAILURES.values()), ids=list(FAILURES)
)
async def test_a_provider_failure_is_not_final_the_same_key_runs_again(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    endpoint: str,
    fault: Answer,
    status: int,
) -> None:
    getattr(fake_openai, endpoint).then(fault)
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url, transcribe_timeout_s=0.3) as client:
        device = await ready_device(client)
        failed = await post(client, device.headers, raw, key)
        left_behind = await command_rows(admin_engine)
        retried = await post(client, device.headers, raw, key)
        replay = await post(client, device.headers, raw, key)
    assert_error(failed, status)
    assert left_behind["idempotency_records"] == 0, "a failure is not stored"
    assert retried.status_code == 200
    assert not replayed(retried)
    assert retried.json()["status"] == "ACCEPTED"
    assert replay.content == retried.content
    assert replayed(replay)
    assert fake_openai.transcriptions.calls == 2


async def test_a_duplicate_waits_only_so_long_then_409_with_retry_after(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    """Another process holds the key (a live lease) and never answers: the duplicate waits
    both provider timeouts plus the margin, then gives up."""
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(
        settings_factory, fake_openai.base_url, transcribe_timeout_s=0.2, plan_timeout_s=0.2
    ) as client:
        device = await ready_device(client)
        await hold_key(admin_engine, device, key, raw, lease=timedelta(minutes=5))
        started = time.monotonic()
        response = await post(client, device.headers, raw, key)
        waited = time.monotonic() - started
    assert_error(response, 409)
    assert_retry_after(response)
    bound = 0.2 + 0.2 + service.WAIT_MARGIN_S
    assert bound <= waited < bound + 2
    assert fake_openai.calls == 0


async def test_another_body_under_a_running_key_is_422_at_once(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    key = uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        await hold_key(admin_engine, device, key, b"{}", lease=timedelta(minutes=5))
        started = time.monotonic()
        response = await post(client, device.headers, raw_body(command_body()), key)
    assert_error(response, 422)
    assert time.monotonic() - started < 1.0
    assert fake_openai.calls == 0


async def test_a_claim_whose_owner_died_is_taken_over(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    raw, key = raw_body(command_body()), uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        await hold_key(admin_engine, device, key, raw, lease=-timedelta(seconds=1))
        started = time.monotonic()
        response = await post(client, device.headers, raw, key)
        elapsed = time.monotonic() - started
        replay = await post(client, device.headers, raw, key)
    assert response.status_code == 200
    assert not replayed(response)
    assert response.json()["status"] == "ACCEPTED"
    assert elapsed < 2.0, "no waiting on a dead owner"
    assert replay.content == response.content
    assert replayed(replay)
    assert fake_openai.transcriptions.calls == 1


async def test_a_key_past_its_24_hours_is_free_again(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    key = uuid.uuid4()
    stale = b'{"command_id": "stale"}'
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        await hold_key(
            admin_engine,
            device,
            key,
            b"another body",
            lease=-timedelta(hours=25),
            state="done",
            expires=-timedelta(hours=1),
            response=stale,
        )
        response = await post(client, device.headers, raw_body(command_body()), key)
    assert response.status_code == 200, response.text
    assert not replayed(response)
    assert response.content != stale
    assert fake_openai.transcriptions.calls == 1


async def test_a_holder_that_lost_its_lease_can_neither_finish_nor_release(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    """A lease has an owner: after a takeover the first holder's finish or release changes
    nothing (its answer never replaces the new owner's, nor gives the key away)."""
    device = await register(client)
    writer = app.services.resources.database.writer
    key, digest = uuid.uuid4(), idempotency.body_hash(b"command")

    async def claim(owner: uuid.UUID, lease_s: float) -> idempotency.Replay | idempotency.Claim:
        async def try_claim(db: Db) -> idempotency.Replay | idempotency.Claim:
            return await idempotency.try_claim(
                db, user_id=device.user_id, key=key, digest=digest, lease_s=lease_s, owner=owner
            )

        return await writer.run(try_claim)

    def finish(owner: uuid.UUID, body: bytes) -> Callable[[Db], Coroutine[Any, Any, bool]]:
        async def finish_then_release(db: Db) -> bool:
            finished = await idempotency.finish(
                db, user_id=device.user_id, key=key, owner=owner, status=200, body=body
            )
            await idempotency.release(db, user_id=device.user_id, key=key, owner=owner)
            return finished

        return finish_then_release

    slow, taker = uuid.uuid4(), uuid.uuid4()
    assert await claim(slow, lease_s=0.05) is idempotency.OWNED
    await asyncio.sleep(0.1)  # past its lease: the next claim takes the key over
    assert await claim(taker, lease_s=30.0) is idempotency.OWNED
    stale = await writer.run(finish(slow, b"stale"))
    fresh = await writer.run(finish(taker, b"fresh"))
    assert (stale, fresh) == (False, True)
    assert await claim(uuid.uuid4(), lease_s=30.0) == idempotency.Replay(200, b"fresh")
