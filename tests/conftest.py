"""Test harness: one migrated database per test session, every test isolated by truncation.

The suite runs on SQLite by default and on PostgreSQL when LISAN_TEST_DATABASE_URL names one
(`make test` does both). With CI=true a PostgreSQL or Redis that cannot be reached fails the run.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy.engine import URL, make_url
from sqlalchemy.ext.asyncio import AsyncEngine

import lisan.models
from lisan.app import LisanApp, create_app
from lisan.core.database import create_engine
from lisan.core.migrate import upgrade_to_head
from lisan.core.settings import Settings

IN_CI = os.environ.get("CI", "").lower() == "true"
DEFAULT_TEST_REDIS_URL = "redis://127.0.0.1:6379/15"


def _off_loop(function: Callable[..., Any], *args: Any) -> Any:
    """Run blocking set-up (Alembic, asyncio.run) in a thread: the test loop may be running."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(function, *args).result()


def _unreachable(what: str, detail: str) -> None:
    message = f"{what} is unreachable ({detail})"
    if IN_CI:
        pytest.exit(f"CI=true: {message}", returncode=1)
    pytest.skip(message)


async def _in_postgres(url: URL, *statements: str) -> None:
    """Run statements, one after the other, through asyncpg on `url`'s database. One string of
    several statements runs as one implicit transaction (PostgreSQL's simple query)."""
    import asyncpg

    dsn = url.set(drivername="postgresql").render_as_string(hide_password=False)
    connection = await asyncpg.connect(dsn, timeout=5)
    try:
        for statement in statements:
            await connection.execute(statement)
    finally:
        await connection.close()


def _recreate_postgres_database(url: str) -> None:
    name = make_url(url).database
    asyncio.run(
        _in_postgres(
            _maintenance(url),
            f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)',
            f'CREATE DATABASE "{name}"',
        )
    )


def _drop_postgres_database(url: str) -> None:
    name = make_url(url).database
    asyncio.run(_in_postgres(_maintenance(url), f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


def _maintenance(url: str) -> URL:
    """The server's `postgres` database: where CREATE and DROP DATABASE run."""
    return make_url(url).set(database="postgres")


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """A freshly created and migrated database for this test session."""
    configured = os.environ.get("LISAN_TEST_DATABASE_URL")
    if not configured:
        with tempfile.TemporaryDirectory(prefix="lisan-test-") as directory:
            url = f"sqlite+aiosqlite:///{directory}/lisan.db"
            _off_loop(upgrade_to_head, url)
            yield url
        return
    # A per-process name, so two suites on one machine never drop each other's database.
    configured_url = make_url(configured)
    url = configured_url.set(database=f"{configured_url.database}_{os.getpid()}").render_as_string(
        hide_password=False
    )
    try:
        _off_loop(_recreate_postgres_database, url)
    except (TimeoutError, OSError) as exc:
        _unreachable("PostgreSQL", f"{type(exc).__name__}: {exc}")
    _off_loop(upgrade_to_head, url)
    try:
        yield url
    finally:
        _off_loop(_drop_postgres_database, url)


@pytest.fixture(scope="session")
def database_kind(database_url: str) -> str:
    return make_url(database_url).get_backend_name()


@pytest.fixture(scope="session")
async def admin_engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    """An engine for the tests themselves: cleaning up and looking behind the API."""
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


def _empty_all_tables(database_url: str) -> None:
    """DELETE every table's rows, children first, through the raw driver: per test, an engine
    and TRUNCATE cost 18 ms on SQLite and 46 ms on PostgreSQL, this 3 ms and 15 ms (over 2,000
    tests, a minute and a half of the suite)."""
    tables = [table.name for table in reversed(lisan.models.Base.metadata.sorted_tables)]
    statements = [f'DELETE FROM "{name}"' for name in tables]  # noqa: S608 (our table names)
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite":
        connection = sqlite3.connect(str(url.database))
        try:
            with connection:
                for statement in statements:
                    connection.execute(statement)
        finally:
            connection.close()
        return
    asyncio.run(_in_postgres(url, "; ".join(statements)))


@pytest.fixture(autouse=True)
def _isolate(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test leaves empty tables behind (truncation, so tests may commit from many
    connections, as real concurrency needs)."""
    if "database_url" not in request.fixturenames:
        yield
        return
    url: str = request.getfixturevalue("database_url")
    yield
    _off_loop(_empty_all_tables, url)


@pytest.fixture
def settings_factory(database_url: str, tmp_path: Path) -> Callable[..., Settings]:
    def make(**overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "database_url": database_url,
            "redis_url": None,
            "storage_dir": tmp_path / "objects",
            "log_format": "json",
            # Tests run the worker themselves, when they choose (tests/deletion).
            "run_worker": False,
            # The fake OpenAI server answers what a test scripts, whatever format was asked:
            # tests speak the design's request unless they test `auto` or `segments`
            # (tests/providers/test_segments.py), where a scripted answer without logprobs
            # would otherwise send the recording again.
            "openai_transcribe_confidence": "logprobs",
        }
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
def settings(settings_factory: Callable[..., Settings]) -> Settings:
    return settings_factory()


@pytest.fixture
async def app(settings: Settings) -> AsyncIterator[LisanApp]:
    lisan_app = create_app(settings)
    async with LifespanManager(lisan_app):
        yield lisan_app


def client_for(lisan_app: LisanApp) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=lisan_app, client=("203.0.113.7", 50000))
    return httpx.AsyncClient(transport=transport, base_url="http://testserver")


@pytest.fixture
async def client(app: LisanApp) -> AsyncIterator[httpx.AsyncClient]:
    async with client_for(app) as http:
        yield http


@pytest.fixture(scope="session")
def redis_url() -> str:
    """A real Redis (database 15, flushed by the tests that use it)."""
    url = os.environ.get("LISAN_TEST_REDIS_URL", DEFAULT_TEST_REDIS_URL)

    async def ping() -> None:
        import redis.asyncio as redis

        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        try:
            await client.ping()
        finally:
            await client.aclose()

    try:
        _off_loop(asyncio.run, ping())
    except Exception as exc:
        _unreachable("Redis", f"{type(exc).__name__}: {exc}")
    return url


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"lisan: database under test: {_backend_label()}; CI={IN_CI}"]


def _backend_label() -> str:
    configured = os.environ.get("LISAN_TEST_DATABASE_URL")
    return make_url(configured).get_backend_name() if configured else "sqlite"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    passed = len(terminalreporter.stats.get("passed", []))
    skipped = len(terminalreporter.stats.get("skipped", []))
    terminalreporter.write_line(
        f"lisan: {passed} tests passed against {_backend_label()}, {skipped} skipped"
    )


from tests.fakes.openai_server import fake_openai  # noqa: E402, F401
