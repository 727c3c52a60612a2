from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime

import httpx
import pytest
from asgi_lifespan import LifespanManager

from lisan.app import create_app
from lisan.core.settings import Settings
from lisan.probes import service as probes
from tests.fixtures.app import client_for
from tests.fixtures.statements import count_statements

# Nothing listens on port 1: a PostgreSQL or Redis "that is not running".
DOWN_POSTGRES = "postgresql+asyncpg://postgres@127.0.0.1:1/lisan"
DOWN_REDIS = "redis://127.0.0.1:1/0"


async def test_health_touches_nothing(settings_factory: Callable[..., Settings]) -> None:
    app = create_app(settings_factory(database_url=DOWN_POSTGRES, redis_url=DOWN_REDIS))
    async with LifespanManager(app), client_for(app) as client:
        started = time.perf_counter()
        response = await client.get("/health")
        elapsed = time.perf_counter() - started
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["service"] == "lisan"
    assert datetime.fromisoformat(body["timestamp"]).utcoffset() is not None
    assert elapsed < 0.5


async def test_ready_with_database_and_no_redis(client: httpx.AsyncClient) -> None:
    response = await client.get("/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "database": "ok", "redis": "unavailable"}


async def test_ready_reports_redis(
    settings_factory: Callable[..., Settings], redis_url: str
) -> None:
    app = create_app(settings_factory(redis_url=redis_url))
    async with LifespanManager(app), client_for(app) as client:
        response = await client.get("/ready")
    assert response.json() == {"status": "ready", "database": "ok", "redis": "ok"}


async def test_ready_does_not_need_redis(settings_factory: Callable[..., Settings]) -> None:
    app = create_app(settings_factory(redis_url=DOWN_REDIS))
    async with LifespanManager(app), client_for(app) as client:
        response = await client.get("/ready")
    assert response.status_code == 200
    assert response.json() == {"status": "ready", "database": "ok", "redis": "unavailable"}


async def test_ready_is_503_when_the_database_is_down_and_serving_goes_on(
    settings_factory: Callable[..., Settings],
) -> None:
    app = create_app(settings_factory(database_url=DOWN_POSTGRES))
    async with LifespanManager(app), client_for(app) as client:
        first = await client.get("/ready")
        health = await client.get("/health")
        second = await client.get("/ready")
    assert first.status_code == 503
    assert first.json() == {
        "status": "unavailable",
        "database": "unavailable",
        "redis": "unavailable",
    }
    assert health.status_code == 200
    assert second.status_code == 503


@pytest.mark.parametrize("path", ["/docs", "/redoc", "/openapi.json"])
async def test_framework_documentation_routes_are_off(client: httpx.AsyncClient, path: str) -> None:
    response = await client.get(path)
    assert response.status_code == 404
    assert response.json() == {"error": "not found"}


async def test_ready_asks_the_database_once_however_many_ask(
    settings_factory: Callable[..., Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    """/ready needs no credentials, so its answer is cached: a call is no free query for anyone."""
    # The cache's age is set, not slept: 60 answers took over 0.5 s on a loaded machine.
    monkeypatch.setattr(probes, "READY_CACHE_S", 60.0)
    app = create_app(settings_factory())
    async with LifespanManager(app), client_for(app) as client:
        with count_statements(app) as statements:
            answers = await asyncio.gather(*(client.get("/ready") for _ in range(50)))
            again = [await client.get("/ready") for _ in range(10)]
            assert len(statements) == 1
            monkeypatch.setattr(probes, "READY_CACHE_S", 0.0)  # every answer is now too old
            later = await client.get("/ready")
    assert {a.status_code for a in (*answers, *again, later)} == {200}
    assert len(statements) == 2  # a fresh check once the answer is older than the cache
