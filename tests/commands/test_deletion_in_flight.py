"""A command in flight while its account is deleted: a recording is kept only under the account
and consent as they are at that moment, the deletion waits for a recording being written (and
then removes it), and a command whose account went meanwhile answers as a deleted account does
(409), never 500 and never with a file left behind."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from lisan.commands import pipeline
from lisan.core.settings import Settings
from lisan.testing.openai_server import FakeOpenAI
from lisan.worker import Worker
from tests.fixtures.answers import assert_error
from tests.fixtures.app import lisan_app, settings_of
from tests.fixtures.commands import app_with, command, command_body, speech_pcm
from tests.fixtures.deletion import files_naming
from tests.fixtures.devices import Device, ready_device

DELETE = "/v1/consent/user-data"
WAIT_S = 10.0


class Gate:
    """A blocking call (run in a thread by the pipeline) held until the test opens the gate."""

    def __init__(self) -> None:
        self.entered = threading.Event()
        self.opened = threading.Event()

    def hold(self) -> None:
        self.entered.set()
        assert self.opened.wait(WAIT_S), "the test never opened the gate"

    async def until_entered(self) -> None:
        assert await asyncio.to_thread(self.entered.wait, WAIT_S), "the gate was never reached"


@dataclass
class InFlight:
    """A command posted while `pipeline.<name>` is held at its start: `gate.until_entered()`,
    act, `gate.opened.set()`, then `await answer`."""

    gate: Gate
    answer: asyncio.Task[httpx.Response]


@asynccontextmanager
async def in_flight(
    client: httpx.AsyncClient, device: Device, monkeypatch: pytest.MonkeyPatch, name: str
) -> AsyncIterator[InFlight]:
    gate, real = Gate(), getattr(pipeline, name)

    def paused(*args: object) -> object:
        gate.hold()
        return real(*args)

    monkeypatch.setattr(pipeline, name, paused)
    body = command_body(speech_pcm(seconds=1.0))
    running = InFlight(gate, asyncio.create_task(command(client, device, body)))
    try:
        await gate.until_entered()
        yield running
    finally:
        gate.opened.set()


async def _retaining_device(client: httpx.AsyncClient) -> Device:
    device = await ready_device(client)
    consent = {"scope": "audio_retention", "granted": True}
    answer = await client.post("/v1/consent/grants", json=consent, headers=device.headers)
    assert answer.status_code == 200, answer.text
    return device


async def _run_jobs(client: httpx.AsyncClient) -> int:
    resources = lisan_app(client).services.resources
    return await Worker(resources.settings, resources.database).run_due()


def _recordings(storage: Path, device: Device) -> list[Path]:
    return [path for path in files_naming(storage, device.user_id) if path.is_file()]


async def test_a_command_whose_account_was_deleted_meanwhile_keeps_nothing_and_answers_409(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The command read "keep audio" at its claim; the account is deleted and its job done
    before the recording would be written."""
    async with app_with(settings_factory, fake_openai.base_url) as client:
        storage = settings_of(client).storage_dir
        device = await _retaining_device(client)
        async with in_flight(client, device, monkeypatch, "has_speech") as running:
            assert (await client.delete(DELETE, headers=device.headers)).status_code == 202
            assert await _run_jobs(client) == 1
            running.gate.opened.set()
            answer = await running.answer
        assert_error(answer, 409)
        assert _recordings(storage, device) == []
        assert fake_openai.transcriptions.requests == []  # nothing more was done for it


async def test_a_deletion_waits_for_a_recording_being_written_and_then_removes_it(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        storage = settings_of(client).storage_dir
        device = await _retaining_device(client)
        async with in_flight(client, device, monkeypatch, "store_audio") as running:
            deletion = asyncio.create_task(client.delete(DELETE, headers=device.headers))
            await asyncio.sleep(0.3)
            waited = not deletion.done()  # the account is held while the file is written
            running.gate.opened.set()
            answer, deleted = await asyncio.gather(running.answer, deletion)
        assert waited
        assert answer.status_code == 200, answer.text  # it was recorded before the deletion
        assert deleted.status_code == 202, deleted.text
        assert len(_recordings(storage, device)) == 1
        assert await _run_jobs(client) == 1
        assert _recordings(storage, device) == []


async def test_a_consent_withdrawn_after_the_claim_keeps_nothing(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        storage = settings_of(client).storage_dir
        device = await _retaining_device(client)
        async with in_flight(client, device, monkeypatch, "has_speech") as running:
            withdrawn = {"scope": "audio_retention", "granted": False}
            answer = await client.post("/v1/consent/grants", json=withdrawn, headers=device.headers)
            assert answer.status_code == 200, answer.text
            running.gate.opened.set()
            kept = await running.answer
        assert kept.status_code == 200, kept.text
        assert _recordings(storage, device) == []
