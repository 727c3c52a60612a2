"""A worker cycle that fails for want of the database says which trouble it is, as the routes
do (`db.database_trouble.DatabaseTrouble`), once per episode: under 200 clients every cycle
met a pool wait that ran out and logged "worker cycle failed" at ERROR while PostgreSQL was
idle."""

from __future__ import annotations

import asyncio
import contextlib
import logging

import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout

from lisan.app import LisanApp
from lisan.worker import Worker


async def _cycles_failing_with(
    app: LisanApp, failure: Exception, caplog: pytest.LogCaptureFixture, cycles: int = 5
) -> list[logging.LogRecord]:
    resources = app.services.resources
    worker = Worker(resources.settings, resources.database)
    failed = 0
    done = asyncio.Event()

    async def failing() -> int:
        nonlocal failed
        failed += 1
        if failed >= cycles:
            done.set()
        raise failure

    worker.run_due = failing  # type: ignore[method-assign]
    with caplog.at_level(logging.INFO):
        task = asyncio.create_task(worker.run_forever(poll_s=0.001))
        await asyncio.wait_for(done.wait(), 10)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert failed >= cycles
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


async def test_a_pool_wait_that_runs_out_is_an_overload_logged_once(
    app: LisanApp, caplog: pytest.LogCaptureFixture
) -> None:
    logged = await _cycles_failing_with(app, PoolTimeout("QueuePool limit reached"), caplog)
    messages = [record.getMessage() for record in logged]
    assert messages == ["service overloaded: no database connection free in time"]
    assert all(record.levelno == logging.WARNING for record in logged)


async def test_an_unreachable_database_is_an_outage_logged_once(
    app: LisanApp, caplog: pytest.LogCaptureFixture
) -> None:
    logged = await _cycles_failing_with(app, ConnectionRefusedError(111, "refused"), caplog)
    assert [record.getMessage() for record in logged] == ["database unavailable"]


async def test_any_other_fault_is_still_an_error_each_cycle(
    app: LisanApp, caplog: pytest.LogCaptureFixture
) -> None:
    logged = await _cycles_failing_with(app, ValueError("a bug"), caplog, cycles=3)
    assert len(logged) >= 3
    assert {record.getMessage() for record in logged} == {"worker cycle failed"}
    assert {record.levelno for record in logged} == {logging.ERROR}
