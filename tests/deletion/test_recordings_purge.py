"""The purge of recordings nobody may keep reaches every owner's folder, however many there
are: with a batch smaller than the number of users who consent, the folders listed after them
(consent withdrawn, never given, the user gone) are removed all the same."""

from __future__ import annotations

import os
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from lisan.app import LisanApp
from lisan.core.settings import Settings
from lisan.recordings.store import audio_folder, store_audio
from lisan.users import service as users
from tests.fixtures.deletion import worker_for
from tests.fixtures.devices import Device, register

BATCH = 2


def listing_order(storage_dir: Path) -> list[str]:
    """The folders as the directory lists them (its own order, not the creation order)."""
    return [entry.name for entry in os.scandir(storage_dir / "audio")]


async def decide(client: httpx.AsyncClient, device: Device, *answers: bool) -> None:
    for granted in answers:
        body = {"scope": "audio_retention", "granted": granted}
        response = await client.post("/v1/consent/grants", json=body, headers=device.headers)
        assert response.status_code == 200, response.text


async def test_the_purge_reaches_the_folders_listed_after_more_consenting_users_than_a_batch(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    settings: Settings = app.services.resources.settings
    devices = {}
    for _ in range(6):
        device = await register(client)
        store_audio(settings.storage_dir, str(device.user_id), str(uuid.uuid4()), b"\0\0" * 1600)
        devices[str(device.user_id)] = device
    # Roles by listing position: the first three consent (more than a batch), so a purge that
    # only ever looked at the first folders listed would never see the three after them.
    order = listing_order(settings.storage_dir)
    consenting, (withdrawn, never, gone) = order[:3], order[3:]
    for name in consenting:
        await decide(client, devices[name], True)
    await decide(client, devices[withdrawn], True, False)
    async with app.services.resources.database.transaction() as db:
        await users.remove_account(db, uuid.UUID(gone))  # a folder whose owner is gone
    (settings.storage_dir / "audio" / "not-a-user-id").mkdir()  # not this service's: left

    worker = worker_for(app, purge_batch=BATCH)
    passes = [await worker.purge() for _ in range(5)]

    for name in (withdrawn, never, gone):
        assert not audio_folder(settings.storage_dir, name).exists(), name
    for name in consenting:
        assert audio_folder(settings.storage_dir, name).is_dir(), name
    assert (settings.storage_dir / "audio" / "not-a-user-id").is_dir()
    assert sum(p.audio_folders for p in passes) == 3
    assert [p.more for p in passes[:4]] == [True, True, True, False]  # 7 folders, 4 batches


async def test_a_new_walk_finds_a_consent_withdrawn_after_the_last_one(
    client: httpx.AsyncClient, app: LisanApp
) -> None:
    """The walk starts over once it reached the end: a folder it kept is looked at again."""
    settings: Settings = app.services.resources.settings
    device = await register(client)
    await decide(client, device, True)
    store_audio(settings.storage_dir, str(device.user_id), str(uuid.uuid4()), b"\0\0" * 1600)
    worker = worker_for(app, purge_batch=BATCH)
    assert (await worker.purge()).audio_folders == 0
    await decide(client, device, False)
    assert (await worker.purge()).audio_folders == 1
    assert not audio_folder(settings.storage_dir, str(device.user_id)).exists()


async def test_a_consent_granted_between_the_read_and_the_removal_keeps_the_recording(
    client: httpx.AsyncClient, app: LisanApp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The purge reads who consents for a batch, then removes: a consent granted in between
    (and a recording a command kept since) is found again at removal, under the account's hold,
    and the folder stays."""
    from lisan.consent import service as consent

    settings: Settings = app.services.resources.settings
    device = await register(client)
    store_audio(settings.storage_dir, str(device.user_id), str(uuid.uuid4()), b"\0\0" * 1600)
    read = consent.granted_among

    async def read_then_granted(*args: Any, **kwargs: Any) -> set[uuid.UUID]:
        keeping: set[uuid.UUID] = await read(*args, **kwargs)
        await decide(client, device, True)  # granted after the batch's read
        return keeping

    monkeypatch.setattr(consent, "granted_among", read_then_granted)
    worker = worker_for(app, purge_batch=BATCH)
    assert (await worker.purge()).audio_folders == 0
    assert audio_folder(settings.storage_dir, str(device.user_id)).is_dir()
