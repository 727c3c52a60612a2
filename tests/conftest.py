"""Test harness: one migrated database per test session, every test isolated by truncation; the
fixtures live in tests/fixtures/ and are registered here.

The suite runs on SQLite by default and on PostgreSQL when LISAN_TEST_DATABASE_URL names one
(`make test` does both). With CI=true a PostgreSQL or Redis that cannot be reached fails the run.
"""

from __future__ import annotations

from typing import Any

import pytest

# The toolshed's assertions explain themselves as a test module's do.
pytest.register_assert_rewrite("tests.fixtures")

from tests.fixtures.ci import IN_CI  # noqa: E402
from tests.fixtures.database import backend_label  # noqa: E402

pytest_plugins = [
    "tests.fixtures.database",
    "tests.fixtures.redis_db",
    "tests.fixtures.app",
    "tests.fixtures.devices",
    "tests.fixtures.admin",
    "tests.fixtures.provider",
    "tests.fixtures.offline",
    "tests.fixtures.private_servers",
    "tests.fixtures.lanes",
]


def pytest_report_header(config: pytest.Config) -> list[str]:
    return [f"lisan: database under test: {backend_label()}; CI={IN_CI}"]


def pytest_terminal_summary(terminalreporter: Any) -> None:
    passed = len(terminalreporter.stats.get("passed", []))
    skipped = len(terminalreporter.stats.get("skipped", []))
    terminalreporter.write_line(
        f"lisan: {passed} tests passed against {backend_label()}, {skipped} skipped"
    )
