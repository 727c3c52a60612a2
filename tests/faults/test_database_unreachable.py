"""A PostgreSQL that cannot be reached: every request that needs it answers 503 with
`Retry-After`, never a 500, and the log says so once per outage, not a traceback per request."""

from __future__ import annotations

import logging

import pytest
from asgi_lifespan import LifespanManager

from lisan.app import create_app
from lisan.core.settings import Settings
from lisan.server.error_handlers import OUTAGE
from tests.fixtures.app import client_for
from tests.fixtures.network import closed_port


async def test_an_unreachable_database_is_a_503_logged_once(
    caplog: pytest.LogCaptureFixture,
) -> None:
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{closed_port()}/lisan"
    app = create_app(Settings(database_url=url, run_worker=False, rate_limit_register="100/minute"))
    body = {"install_id": "inst-0123456789abcdef"}
    with caplog.at_level(logging.INFO):
        async with LifespanManager(app), client_for(app) as client:
            answers = [await client.post("/v1/auth/register-device", json=body) for _ in range(20)]
    assert {a.status_code for a in answers} == {503}
    assert {a.headers.get("retry-after") for a in answers} == {"5"}
    assert {a.json()["error"] for a in answers} == {OUTAGE}
    messages = [record.getMessage() for record in caplog.records]
    assert messages.count("database unavailable") == 1
    assert not any("overloaded" in message for message in messages)
    assert "unhandled error" not in messages
    assert not any(record.exc_info for record in caplog.records)
