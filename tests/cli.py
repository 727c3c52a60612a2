"""The `lisan` command line as the tests run it: a real process, as an operator runs it, with
none of the caller's LISAN_ variables."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

LISAN = [sys.executable, "-m", "lisan"]


def clean_env(**overrides: str) -> dict[str, str]:
    """The caller's environment without any LISAN_ variable, plus `overrides`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LISAN_")}
    env.update(overrides)
    return env


async def lisan(database_url: str, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`lisan ARGS` against `database_url`, without blocking the test's event loop."""
    return await asyncio.to_thread(
        subprocess.run,
        [*LISAN, *args],
        env=clean_env(LISAN_DATABASE_URL=database_url),
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _is_log_record(line: str) -> bool:
    try:
        record = json.loads(line)
    except ValueError:
        return False
    return isinstance(record, dict) and "level" in record


def messages(stderr: str) -> list[str]:
    """What stderr says besides structured log records (one JSON object a line)."""
    return [line for line in stderr.splitlines() if line.strip() and not _is_log_record(line)]
