"""Helpers for the rule-by-rule tests of POST /v1/commands: an app with any settings on the fake
provider, exact request bytes, planner answers, and a look behind the API at what a command left.

`tests/commands/support.py` fixes the rate limits of its app; these tests need to set them too.
"""

from __future__ import annotations

import json
import logging
import traceback
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from typing import Any

import httpx
from asgi_lifespan import LifespanManager
from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncEngine

import lisan.models
from lisan.app import LisanApp, create_app
from lisan.billing.models import BilledCommand
from lisan.commands.models import IdempotencyRecord
from lisan.core.settings import Settings
from lisan.telemetry.models import CommandEvent
from tests.commands.support import TELEGRAM
from tests.conftest import client_for
from tests.contract import assert_matches_contract
from tests.factories import Device

COMMANDS = "/v1/commands"
API_KEY = "sk-test-not-a-real-key"
TRANSCRIPT = "open telegram"  # what the fake transcriber hears by default

Json = Any


@asynccontextmanager
async def app_with(
    settings_factory: Callable[..., Settings], base_url: str, **overrides: Any
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app on the OpenAI adapter pointed at `base_url`, with any setting
    overridden (rate limits included); `client.lisan_app` is the app."""
    values: dict[str, Any] = {
        "provider": "openai",
        "openai_base_url": base_url,
        "openai_api_key": API_KEY,
        "rate_limit_commands": "100000/minute",
        "rate_limit_user": "100000/minute",
        "rate_limit_ip": "100000/minute",
    }
    values.update(overrides)
    app = create_app(settings_factory(**values))
    async with LifespanManager(app), client_for(app) as client:
        client.lisan_app = app  # type: ignore[attr-defined]
        yield client


def lisan_app(client: httpx.AsyncClient) -> LisanApp:
    app: LisanApp = client.lisan_app  # type: ignore[attr-defined]
    return app


def settings_of(client: httpx.AsyncClient) -> Settings:
    settings: Settings = lisan_app(client).services.resources.settings
    return settings


def raw_body(body: Mapping[str, Json]) -> bytes:
    """The exact bytes sent, so a test knows the body hash the server keys them by."""
    return json.dumps(body).encode()


async def post(
    client: httpx.AsyncClient,
    headers: Mapping[str, str],
    raw: bytes,
    key: uuid.UUID | str | None = None,
    **more_headers: str,
) -> httpx.Response:
    """POST these bytes with this X-Idempotency-Key (a fresh one when None); checked against the
    contract."""
    sent = {
        **headers,
        "Content-Type": "application/json",
        "X-Idempotency-Key": str(key or uuid.uuid4()),
        **more_headers,
    }
    response = await client.post(COMMANDS, content=raw, headers=sent)
    assert_matches_contract(response)
    return response


async def command(
    client: httpx.AsyncClient,
    device: Device,
    body: Mapping[str, Json],
    key: uuid.UUID | str | None = None,
    **more_headers: str,
) -> httpx.Response:
    return await post(client, device.headers, raw_body(body), key, **more_headers)


def assert_error(response: httpx.Response, status: int) -> str:
    """An error answer: the status, and a body of exactly `{"error": <string>}`."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}
    assert isinstance(body["error"], str)
    assert body["error"]
    message: str = body["error"]
    return message


def retry_after(response: httpx.Response) -> int:
    value = int(response.headers["retry-after"])
    assert value >= 1
    return value


def step(
    action_type: str = "TAP",
    target: str | None = "n2",
    payload: str | None = None,
    destructive: bool = False,
    **fields: Json,
) -> dict[str, Json]:
    """A planner step (target n2 is the harmless "Chats" label of VIEW_TREE)."""
    return {
        "action_type": action_type,
        "target_node_id": target,
        "payload": payload,
        "is_destructive": destructive,
        **fields,
    }


def plan(*steps: dict[str, Json], package: str = TELEGRAM, **fields: Json) -> dict[str, Json]:
    """A planner answer, as the design's wire format has it."""
    return {
        "package_name": package,
        "steps": list(steps) if steps else [step()],
        "needs_confirmation": False,
        "speech_response_text": None,
        **fields,
    }


def transcription(text: str = TRANSCRIPT, *logprobs: float) -> dict[str, Json]:
    """A transcriber answer; without logprobs it gives no confidence score."""
    answer: dict[str, Json] = {"text": text}
    if logprobs:
        answer["logprobs"] = [{"token": f"t{i}", "logprob": lp} for i, lp in enumerate(logprobs)]
    return answer


async def count(engine: AsyncEngine, model: type[Any]) -> int:
    async with engine.connect() as connection:
        value = await connection.scalar(select(func.count()).select_from(model))
    return int(value or 0)


async def command_rows(engine: AsyncEngine) -> dict[str, int]:
    """How many rows a command leaves behind, by table."""
    return {
        "command_events": await count(engine, CommandEvent),
        "billed_commands": await count(engine, BilledCommand),
        "idempotency_records": await count(engine, IdempotencyRecord),
    }


NO_COMMAND_ROWS = {"command_events": 0, "billed_commands": 0, "idempotency_records": 0}


async def command_events(engine: AsyncEngine) -> list[Any]:
    async with engine.connect() as connection:
        return list((await connection.execute(select(CommandEvent))).all())


async def every_stored_text(engine: AsyncEngine) -> str:
    """Every value of every column of every table, as text (bytes decoded leniently)."""
    parts: list[str] = []
    async with engine.connect() as connection:
        for table in lisan.models.Base.metadata.sorted_tables:
            for row in (await connection.execute(select(table))).all():
                for value in row:
                    if isinstance(value, bytes):
                        parts.append(value.decode("utf-8", errors="replace"))
                    else:
                        parts.append(json.dumps(value, default=str, ensure_ascii=False))
    return "\n".join(parts)


@asynccontextmanager
async def subscriptions_unreadable(engine: AsyncEngine) -> AsyncIterator[None]:
    """The subscription store fails for real while inside: its table is renamed away."""
    async with engine.begin() as connection:
        await connection.execute(text("ALTER TABLE subscriptions RENAME TO subscriptions_away"))
    try:
        yield
    finally:
        async with engine.begin() as connection:
            await connection.execute(text("ALTER TABLE subscriptions_away RENAME TO subscriptions"))


def log_text(records: list[logging.LogRecord]) -> str:
    """Everything a log record holds: its message, its extra fields and any traceback."""
    parts: list[str] = []
    for record in records:
        parts += [record.getMessage(), repr(record.__dict__)]
        if record.exc_info and record.exc_info[1] is not None:
            parts.append("".join(traceback.format_exception(record.exc_info[1])))
    return "\n".join(parts)


class Cases:
    """Many cases in one test (one app, one device: each app costs a fake server, a lifespan
    and a truncation): every case runs, and the test fails naming each case that failed."""

    def __init__(self) -> None:
        self.failures: list[str] = []
        self.ran = 0

    @contextmanager
    def case(self, name: str) -> Iterator[None]:
        self.ran += 1
        try:
            yield
        except AssertionError as exc:
            self.failures.append(f"[{name}] {exc}".splitlines()[0])

    def check(self) -> None:
        assert self.ran > 0
        assert not self.failures, f"{len(self.failures)} of {self.ran} cases failed:\n" + (
            "\n".join(self.failures)
        )
