"""Command-route test support: an app on the OpenAI adapter pointed at the fake server, real
speech, and request builders."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from asgi_lifespan import LifespanManager

from lisan.app import create_app
from lisan.core.settings import Settings
from tests.audio import b64, duration_ms, padded, spoken
from tests.conftest import client_for
from tests.contract import assert_matches_contract
from tests.factories import Device, register
from tests.fakes.openai_server import FakeOpenAI

TELEGRAM = "org.telegram.messenger"
GMAIL = "com.google.android.gm"
VIEW_TREE = """[n1] FrameLayout
  [n2] TextView "Chats" {clickable}
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Abebe" desc="Contact Abebe" {clickable}
  [n7] Button "Delete chat" {clickable}"""


@asynccontextmanager
async def command_app(
    settings_factory: Callable[..., Settings], fake: FakeOpenAI, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app whose provider is the fake server (`client.lisan_app` is the app)."""
    settings = settings_factory(
        provider="openai",
        openai_base_url=fake.base_url,
        openai_api_key="sk-test-not-a-real-key",
        rate_limit_commands="100000/minute",
        rate_limit_user="100000/minute",
        rate_limit_ip="100000/minute",
        **overrides,
    )
    app = create_app(settings)
    async with LifespanManager(app), client_for(app) as client:
        client.lisan_app = app  # type: ignore[attr-defined]
        yield client


def speech_pcm(text: str = "open telegram", language: str = "en-US", seconds: float = 2.0) -> bytes:
    return padded(spoken(text, language), seconds)


def command_body(
    pcm: bytes | None = None,
    *,
    language: str | None = "en-US",
    package: str = TELEGRAM,
    tree: str = VIEW_TREE,
    **changes: Any,
) -> dict[str, Any]:
    pcm = speech_pcm() if pcm is None else pcm
    body: dict[str, Any] = {
        "audio_base64": b64(pcm),
        "duration_ms": duration_ms(pcm),
        "screen_context": {"current_package": package, "view_tree_summary": tree},
    }
    if language is not None:
        body["language"] = language
    body.update(changes)
    return body


async def grant(client: httpx.AsyncClient, device: Device, *packages: str) -> None:
    for package in packages:
        response = await client.post(
            "/v1/app-grants",
            json={"package_name": package, "granted": True},
            headers=device.headers,
        )
        assert response.status_code == 200, response.text


async def ready_device(client: httpx.AsyncClient, *packages: str) -> Device:
    device = await register(client)
    await grant(client, device, *(packages or (TELEGRAM,)))
    return device


async def send(
    client: httpx.AsyncClient,
    device: Device,
    body: dict[str, Any],
    key: uuid.UUID | str | None = None,
    *,
    check_contract: bool = True,
) -> httpx.Response:
    headers = {**device.headers, "X-Idempotency-Key": str(key or uuid.uuid4())}
    response = await client.post("/v1/commands", json=body, headers=headers)
    if check_contract:
        assert_matches_contract(response)
    return response
