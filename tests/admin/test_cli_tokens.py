"""`lisan admin create-token` / `revoke-token`, run as an operator runs them: a real process."""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.admin.models import AdminCredential
from lisan.app import create_app
from lisan.core import tokens
from lisan.core.settings import Settings
from lisan.db.database import create_engine
from tests.fixtures.admin import bearer, user_path
from tests.fixtures.app import client_for
from tests.fixtures.cli import lisan, messages
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, register

ADMIN_TOKEN_SHAPE = re.compile(r"lsn_a_[A-Za-z0-9_-]{43}[0-9A-Za-z]{6}")


@pytest.fixture
def cli_url(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/cli/x.db"


@pytest.fixture
async def cli_client(
    cli_url: str, tmp_path: Path, settings_factory: Callable[..., Settings]
) -> AsyncIterator[httpx.AsyncClient]:
    """A client of an app on the CLI's database (migrated first, as the CLI would)."""
    migrated = await lisan(cli_url, tmp_path, "migrate")
    assert migrated.returncode == 0, migrated.stderr
    app = create_app(settings_factory(database_url=cli_url))
    async with LifespanManager(app), client_for(app) as client:
        yield client


@pytest.fixture
async def cli_engine(cli_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(cli_url)
    yield engine
    await engine.dispose()


async def create_token(url: str, cwd: Path, name: str, *permissions: str) -> str:
    flags = [arg for permission in permissions for arg in ("--permission", permission)]
    result = await lisan(url, cwd, "admin", "create-token", "--name", name, *flags)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


async def test_create_token_prints_the_token_alone_on_stdout(cli_url: str, tmp_path: Path) -> None:
    result = await lisan(
        cli_url, tmp_path, "admin", "create-token", "--name", "ops", "--permission", "users.read"
    )
    assert result.returncode == 0, result.stderr
    token = result.stdout.removesuffix("\n")
    assert result.stdout == token + "\n"
    assert ADMIN_TOKEN_SHAPE.fullmatch(token)
    assert tokens.is_well_formed(token, tokens.ADMIN_PREFIX)


async def test_only_the_sha256_of_the_token_is_stored(
    cli_url: str, tmp_path: Path, cli_engine: AsyncEngine
) -> None:
    token = await create_token(cli_url, tmp_path, "ops", "users.read", "users.suspend")
    async with cli_engine.connect() as connection:
        rows = (await connection.execute(select(AdminCredential))).all()
    assert len(rows) == 1
    stored = rows[0]
    assert token not in [str(value) for value in stored]
    assert stored.token_hash == hashlib.sha256(token.encode()).digest()
    assert stored.name == "ops"
    assert sorted(stored.permissions.split()) == ["users.read", "users.suspend"]
    database_files = [p for p in (tmp_path / "cli").iterdir() if p.name.startswith("x.db")]
    contents = await asyncio.to_thread(lambda: b"".join(p.read_bytes() for p in database_files))
    assert token.encode() not in contents


async def test_a_cli_token_works_with_exactly_its_permissions(
    cli_url: str, tmp_path: Path, cli_client: httpx.AsyncClient
) -> None:
    device: Device = await register(cli_client)
    token = await create_token(cli_url, tmp_path, "reader", "users.read")
    read = await cli_client.get(user_path(device.user_id), headers=bearer(token))
    suspend = await cli_client.post(user_path(device.user_id, "/suspend"), headers=bearer(token))
    assert_matches_contract(read)
    assert read.status_code == 200
    assert_matches_contract(suspend)
    assert suspend.status_code == 403


async def test_a_token_with_both_permissions_may_suspend(
    cli_url: str, tmp_path: Path, cli_client: httpx.AsyncClient
) -> None:
    device = await register(cli_client)
    token = await create_token(cli_url, tmp_path, "ops", "users.read", "users.suspend")
    response = await cli_client.post(user_path(device.user_id, "/suspend"), headers=bearer(token))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "suspended", "userId": str(device.user_id)}


async def test_revoke_token_makes_the_token_answer_401(
    cli_url: str, tmp_path: Path, cli_client: httpx.AsyncClient
) -> None:
    device = await register(cli_client)
    token = await create_token(cli_url, tmp_path, "ops", "users.read")
    revoked = await lisan(cli_url, tmp_path, "admin", "revoke-token", "--name", "ops")
    assert revoked.returncode == 0, revoked.stderr
    assert revoked.stdout == ""
    response = await cli_client.get(user_path(device.user_id), headers=bearer(token))
    assert_matches_contract(response)
    assert response.status_code == 401
    assert 'error="invalid_token"' in response.headers["www-authenticate"]


async def test_a_revoked_name_may_be_issued_again_and_the_old_token_stays_dead(
    cli_url: str, tmp_path: Path, cli_client: httpx.AsyncClient
) -> None:
    device = await register(cli_client)
    old = await create_token(cli_url, tmp_path, "ops", "users.read")
    await lisan(cli_url, tmp_path, "admin", "revoke-token", "--name", "ops")
    new = await create_token(cli_url, tmp_path, "ops", "users.read")
    old_answer = await cli_client.get(user_path(device.user_id), headers=bearer(old))
    new_answer = await cli_client.get(user_path(device.user_id), headers=bearer(new))
    assert new != old
    assert_matches_contract(old_answer)
    assert old_answer.status_code == 401
    assert_matches_contract(new_answer)
    assert new_answer.status_code == 200


async def test_revoking_an_unknown_name_exits_1_with_one_line(cli_url: str, tmp_path: Path) -> None:
    result = await lisan(cli_url, tmp_path, "admin", "revoke-token", "--name", "nobody")
    assert result.returncode == 1
    assert result.stdout == ""
    assert messages(result.stderr) == ["lisan: no live admin credential named 'nobody'"]
    assert "Traceback" not in result.stderr


async def test_a_duplicate_live_name_exits_1_and_keeps_the_first_token(
    cli_url: str, tmp_path: Path, cli_client: httpx.AsyncClient
) -> None:
    device = await register(cli_client)
    first = await create_token(cli_url, tmp_path, "ops", "users.read")
    again = await lisan(
        cli_url, tmp_path, "admin", "create-token", "--name", "ops", "--permission", "users.read"
    )
    assert again.returncode == 1
    assert again.stdout == ""
    lines = messages(again.stderr)
    assert len(lines) == 1
    assert lines[0].startswith("lisan: ")
    still = await cli_client.get(user_path(device.user_id), headers=bearer(first))
    assert_matches_contract(still)
    assert still.status_code == 200


@pytest.mark.parametrize(
    "arguments",
    [
        ["--name", "ops", "--permission", "users.write"],
        ["--name", "ops", "--permission", "users.read", "--permission", "admin"],
        ["--name", "ops"],
        ["--permission", "users.read"],
    ],
    ids=["unknown-permission", "one-bad-permission", "no-permission", "no-name"],
)
async def test_bad_arguments_exit_2_and_print_no_token(
    cli_url: str, tmp_path: Path, arguments: list[str]
) -> None:
    result = await lisan(cli_url, tmp_path, "admin", "create-token", *arguments)
    assert result.returncode == 2
    assert result.stdout == ""
    assert "lsn_a_" not in result.stderr


async def test_create_token_works_on_the_service_database(
    database_url: str, tmp_path: Path, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    """The suite's own database (PostgreSQL when LISAN_TEST_DATABASE_URL names one)."""
    device = await register(client)
    token = await create_token(database_url, tmp_path, "ops", "users.read")
    response = await client.get(user_path(device.user_id), headers=bearer(token))
    assert_matches_contract(response)
    assert response.status_code == 200
    async with admin_engine.connect() as connection:
        stored = await connection.scalar(
            select(AdminCredential.token_hash).where(AdminCredential.name == "ops")
        )
    assert stored == hashlib.sha256(token.encode()).digest()
