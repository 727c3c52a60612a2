"""An idle worker only reads: with jobs that are not due (waiting out a backoff, running under a
live lease, completed, failed with the alert sent), its polls send no statement that locks or
writes, and on SQLite they answer while another process holds the write lock."""

from __future__ import annotations

import re
import sqlite3
import uuid
from datetime import timedelta

import pytest
from sqlalchemy.engine import make_url

from lisan.app import LisanApp
from lisan.core.locale import Locale
from lisan.db.handle import insert_record
from lisan.db.types import utcnow
from lisan.deletion.models import DeletionJob, JobStatus
from lisan.users import service as users
from tests.fixtures.deletion import worker_for
from tests.fixtures.statements import statements_sent

POLLS = 10
LOCKING = re.compile(r"^\s*(BEGIN IMMEDIATE|UPDATE|DELETE|INSERT)\b|\bFOR (UPDATE|SHARE)\b", re.I)


async def jobs_none_due(app: LisanApp) -> None:
    """One job in each state that is not due now."""
    now = utcnow()
    later = now + timedelta(hours=1)
    async with app.services.resources.database.transaction() as db:
        for status, lease_until, alert_pending in (
            (JobStatus.RETRYING, None, False),  # its backoff runs until `later`
            (JobStatus.RUNNING, later, False),  # its worker holds it
            (JobStatus.COMPLETED, None, False),
            (JobStatus.FAILED, None, False),  # its alert went out
            (JobStatus.FAILED, later, True),  # its alert is being sent by another worker
        ):
            user = await users.create_account(db, f"inst-{uuid.uuid4().hex}", Locale.EN_US)
            await insert_record(
                db,
                DeletionJob(
                    id=uuid.uuid4(),
                    user_id=user.id,
                    status=status,
                    attempts=1,
                    created_at=now,
                    run_after=later,
                    lease_until=lease_until,
                    alert_pending=alert_pending,
                ),
            )


async def test_idle_polls_send_no_statement_that_locks(app: LisanApp) -> None:
    await jobs_none_due(app)
    worker = worker_for(app)
    resources = app.services.resources
    with (
        statements_sent(resources.database.write_engine) as on_writes,
        statements_sent(resources.database.engine) as on_reads,
    ):
        done = [await worker.run_due() for _ in range(POLLS)]
    assert done == [0] * POLLS
    sent = on_writes + on_reads
    assert [s for s in sent if LOCKING.search(s)] == []
    assert sent  # the polls did look
    worker.close()


async def test_on_sqlite_an_idle_poll_answers_while_another_process_holds_the_write_lock(
    app: LisanApp, database_url: str, database_kind: str
) -> None:
    if database_kind != "sqlite":
        pytest.skip("the database-wide write lock is SQLite's")
    await jobs_none_due(app)
    worker = worker_for(app)
    holder = sqlite3.connect(make_url(database_url).database or "", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")  # as another process's write transaction would
        assert [await worker.run_due() for _ in range(POLLS)] == [0] * POLLS
        assert await worker.send_alerts() == 0
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    worker.close()
