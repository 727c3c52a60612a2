"""Fixtures of the fault tests: a private PostgreSQL cluster and a private redis-server per test
module (see harness.py), each running, thawed and unharmed again after every test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from tests.faults.harness import PrivatePostgres, PrivateRedis

ServerT = TypeVar("ServerT", PrivatePostgres, PrivateRedis)


def _running(kind: type[ServerT]) -> Iterator[ServerT]:
    # Not under pytest's tmp_path: as root the cluster runs as `postgres`, who cannot enter it.
    root = Path(tempfile.mkdtemp(prefix=f"lisan-faults-{kind.name}-"))
    try:
        server = kind.create(root)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _restored(server: ServerT) -> None:
    """Thawed and running again, whatever the test did to it."""
    if server.frozen:
        server.thaw()
    if not server.running:
        server.kill()  # reaps what is left of its processes
        server.start()


@pytest.fixture(scope="module")
def private_postgres() -> Iterator[PrivatePostgres]:
    yield from _running(PrivatePostgres)


@pytest.fixture
def postgres(private_postgres: PrivatePostgres) -> Iterator[PrivatePostgres]:
    """The module's cluster, restored after the test."""
    yield private_postgres
    _restored(private_postgres)


@pytest.fixture(scope="module")
def private_redis() -> Iterator[PrivateRedis]:
    yield from _running(PrivateRedis)


@pytest.fixture
def redis_server(private_redis: PrivateRedis) -> Iterator[PrivateRedis]:
    """The module's redis-server, restored after the test."""
    yield private_redis
    _restored(private_redis)
