"""The `lisan` command line, run as an operator runs it: a real process."""

from __future__ import annotations

import json
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.fixtures.cli import LISAN, clean_env


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for(url: str, timeout_s: float = 60) -> httpx.Response:
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return httpx.get(url, timeout=2)
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def _serve(env: dict[str, str], cwd: Path) -> Iterator[str]:
    port = _free_port()
    process = subprocess.Popen(
        [*LISAN, "serve", "--port", str(port)],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        _wait_for(f"{base}/health")
        yield base
    finally:
        process.terminate()
        process.wait(timeout=15)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[str]:
    yield from _serve(
        clean_env(LISAN_DATABASE_URL=f"sqlite+aiosqlite:///{tmp_path}/db/lisan.db"), tmp_path
    )


@pytest.fixture
def served_without_database(tmp_path: Path) -> Iterator[str]:
    yield from _serve(
        clean_env(LISAN_DATABASE_URL="postgresql+asyncpg://postgres@127.0.0.1:1/x"), tmp_path
    )


def test_serve_answers_health_and_edge_rules(served: str) -> None:
    health = httpx.get(f"{served}/health")
    assert health.status_code == 200
    assert health.json()["status"] == "ok"
    missing = httpx.get(f"{served}/nope", headers={"X-Request-ID": "not-a-uuid"})
    assert missing.status_code == 404
    assert missing.json() == {"error": "not found"}
    assert uuid.UUID(missing.headers["x-request-id"])
    big = httpx.post(
        f"{served}/v1/auth/register-device",
        content=b'{"install_id": "' + b"a" * 20_000 + b'"}',
        headers={"content-type": "application/json"},
    )
    assert big.status_code == 413
    assert big.json() == {"error": "request body too large"}
    ready = httpx.get(f"{served}/ready")
    assert ready.json() == {"status": "ready", "database": "ok", "redis": "unavailable"}


def test_serve_keeps_serving_unready_without_its_database(served_without_database: str) -> None:
    ready = httpx.get(f"{served_without_database}/ready", timeout=15)
    assert ready.status_code == 503
    assert ready.json()["database"] == "unavailable"
    assert httpx.get(f"{served_without_database}/health").status_code == 200


def test_migrate_creates_the_schema(tmp_path: Path) -> None:
    database = tmp_path / "m.db"
    result = subprocess.run(
        [*LISAN, "migrate"],
        env=clean_env(LISAN_DATABASE_URL=f"sqlite+aiosqlite:///{database}"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert database.exists()
    import sqlite3

    with sqlite3.connect(database) as connection:
        assert connection.execute("SELECT count(*) FROM alembic_version").fetchone() == (1,)


def test_a_bad_setting_exits_1_with_one_line(tmp_path: Path) -> None:
    result = subprocess.run(
        [*LISAN, "migrate"],
        env=clean_env(LISAN_SESSION_TTL_S="soon"),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0
    assert result.stderr.startswith("lisan: LISAN_SESSION_TTL_S: ")
    assert "Traceback" not in result.stderr


def test_bad_arguments_exit_2() -> None:
    result = subprocess.run(
        [*LISAN, "serve", "--port", "seventy"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2


def test_migrate_against_a_missing_database_fails_cleanly(tmp_path: Path) -> None:
    result = subprocess.run(
        [*LISAN, "migrate"],
        env=clean_env(LISAN_DATABASE_URL="postgresql+asyncpg://postgres@127.0.0.1:1/x"),
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1].startswith("lisan: migration failed")


def test_say_sends_a_spoken_command_to_the_running_service(served: str, tmp_path: Path) -> None:
    """`lisan say` right after `make run`: a real server on the offline provider, a demo device
    registered once and reused, and the plan printed."""
    for _ in range(2):
        result = subprocess.run(
            [*LISAN, "say", "scroll down", "--url", served],
            env=clean_env(),
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        answer = json.loads(result.stdout)
        assert answer["status"] == "ACCEPTED"
        assert [s["action_type"] for s in answer["action_plan"]["steps"]] == ["SCROLL"]
    device = json.loads((tmp_path / "var" / "say-device.json").read_text())
    assert device["install_id"].startswith("lisan-say-")


def test_say_says_when_the_service_is_not_running(tmp_path: Path) -> None:
    result = subprocess.run(
        [*LISAN, "say", "go back", "--url", f"http://127.0.0.1:{_free_port()}"],
        env=clean_env(),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stderr.startswith("lisan: cannot reach")
    assert "make run" in result.stderr
