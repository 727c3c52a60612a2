"""Fixtures of the fault tests: a private PostgreSQL cluster and a private redis-server per test
module (see harness.py), each running, thawed and unharmed again after every test."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.faults.harness import PrivatePostgres, PrivateRedis


@pytest.fixture(scope="module")
def private_postgres() -> Iterator[PrivatePostgres]:
    # Not under pytest's tmp_path: as root the cluster runs as `postgres`, who cannot enter it.
    root = Path(tempfile.mkdtemp(prefix="lisan-faults-pg-"))
    try:
        server = PrivatePostgres.create(root)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def postgres(private_postgres: PrivatePostgres) -> Iterator[PrivatePostgres]:
    """The module's cluster, restored after the test: thawed and running."""
    yield private_postgres
    if private_postgres.frozen:
        private_postgres.thaw()
    if not private_postgres.running:
        private_postgres.kill()  # reaps what is left of its process group
        private_postgres.start()


@pytest.fixture(scope="module")
def private_redis() -> Iterator[PrivateRedis]:
    root = Path(tempfile.mkdtemp(prefix="lisan-faults-redis-"))
    try:
        server = PrivateRedis.create(root)
        server.start()
        try:
            yield server
        finally:
            server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def redis_server(private_redis: PrivateRedis) -> Iterator[PrivateRedis]:
    """The module's redis-server, restored after the test: thawed and running."""
    yield private_redis
    if private_redis.frozen:
        private_redis.thaw()
    if not private_redis.running:
        private_redis.kill()
        private_redis.start()
