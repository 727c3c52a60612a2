"""`Db`, the one handle every repository takes: the same statements, the same answers and the
same savepoints whichever way in hands it out (a unit of work on the engine, or the command
path's on the drivers themselves); records read and written without a session."""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import pytest
from sqlalchemy import bindparam, insert, select

from lisan.admin.models import AdminCredential
from lisan.app import LisanApp
from lisan.db.database import table_of
from lisan.db.handle import Db, as_record, insert_record
from lisan.db.store import Database
from lisan.db.types import utcnow

T = TypeVar("T")
_CREDENTIALS = table_of(AdminCredential)
_NAMED = select(_CREDENTIALS).where(AdminCredential.name == bindparam("name"))


class _Failed(Exception):
    pass


async def _in_transaction(database: Database, work: Callable[[Db], Awaitable[T]]) -> T:
    async with database.transaction() as db:
        return await work(db)


async def _in_run(database: Database, work: Callable[[Db], Coroutine[Any, Any, T]]) -> T:
    return await database.run(work)


WAYS_IN = [
    pytest.param(_in_transaction, id="engine-unit-of-work"),
    pytest.param(_in_run, id="command-path-unit-of-work"),
]


def _credential(name: str) -> AdminCredential:
    return AdminCredential(
        name=name, token_hash=secrets.token_bytes(32), permissions="users:read", created_at=utcnow()
    )


async def _stored(database: Database, name: str) -> AdminCredential | None:
    row = (await database.reads.execute(_NAMED, {"name": name})).first()
    return None if row is None else as_record(AdminCredential, row)


# --- savepoints ---------------------------------------------------------------------------


@pytest.mark.parametrize("way_in", WAYS_IN)
async def test_a_savepoint_that_raises_is_undone_alone_and_the_unit_of_work_goes_on(
    app: LisanApp, way_in: Callable[[Database, Callable[[Db], Awaitable[None]]], Awaitable[None]]
) -> None:
    database = app.services.resources.database
    kept, undone, after = (f"kept-{uuid.uuid4().hex[:8]}" for _ in range(3))

    async def fails(db: Db) -> None:
        async with db.savepoint():
            await insert_record(db, _credential(undone))
            raise _Failed

    async def work(db: Db) -> None:
        await insert_record(db, _credential(kept))
        with pytest.raises(_Failed):
            await fails(db)
        await insert_record(db, _credential(after))

    await way_in(database, work)
    assert await _stored(database, kept) is not None
    assert await _stored(database, undone) is None
    assert await _stored(database, after) is not None


@pytest.mark.parametrize("way_in", WAYS_IN)
async def test_a_savepoint_not_kept_leaves_nothing_even_when_its_block_ends_cleanly(
    app: LisanApp, way_in: Callable[[Database, Callable[[Db], Awaitable[None]]], Awaitable[None]]
) -> None:
    database = app.services.resources.database
    looked, kept = f"looked-{uuid.uuid4().hex[:8]}", f"kept-{uuid.uuid4().hex[:8]}"

    async def work(db: Db) -> None:
        async with db.savepoint(keep=False):
            await insert_record(db, _credential(looked))
            assert (await db.execute(_NAMED, {"name": looked})).first() is not None
        async with db.savepoint():  # nested depth reused once released
            await insert_record(db, _credential(kept))

    await way_in(database, work)
    assert await _stored(database, looked) is None
    assert await _stored(database, kept) is not None


async def test_reads_outside_a_unit_of_work_have_no_savepoint(app: LisanApp) -> None:
    """Each read is its own snapshot: a savepoint there is a mistake, refused loudly."""
    with pytest.raises(TypeError, match="no savepoint"):
        app.services.resources.database.reads.savepoint()


# --- records ------------------------------------------------------------------------------


async def test_an_inserted_record_takes_its_python_defaults_and_reads_back_the_same(
    app: LisanApp,
) -> None:
    """A column left unset (the id) takes its Python default, set on the record too, so the
    record is the row written."""
    database = app.services.resources.database
    credential = _credential(f"record-{uuid.uuid4().hex[:8]}")
    async with database.transaction() as db:
        written = await insert_record(db, credential)
    assert written is credential
    assert isinstance(credential.id, uuid.UUID)
    stored = await _stored(database, credential.name)
    assert isinstance(stored, AdminCredential)
    assert (stored.id, stored.token_hash, stored.created_at, stored.revoked_at) == (
        credential.id,
        credential.token_hash,
        credential.created_at,
        None,
    )


async def test_the_same_statement_answers_the_same_on_every_way_in(app: LisanApp) -> None:
    database = app.services.resources.database
    name = f"same-{uuid.uuid4().hex[:8]}"
    async with database.transaction() as db:
        await insert_record(db, _credential(name))

    async def read(db: Db) -> tuple[object, ...]:
        row = (await db.execute(_NAMED, {"name": name})).first()
        assert row is not None
        return tuple(row)

    on_reads = await read(database.reads)
    on_run = await database.run(read)
    async with database.read_transaction() as db:
        on_engine = await read(db)
    assert on_reads == on_run == on_engine


# --- batches ------------------------------------------------------------------------------


@pytest.mark.parametrize("way_in", WAYS_IN)
async def test_a_batch_of_rows_is_written_whole_on_every_way_in(
    app: LisanApp, way_in: Callable[[Database, Callable[[Db], Awaitable[None]]], Awaitable[None]]
) -> None:
    database = app.services.resources.database
    names = [f"batch-{uuid.uuid4().hex[:8]}" for _ in range(3)]
    rows = [
        {
            "id": uuid.uuid4(),
            "name": name,
            "token_hash": secrets.token_bytes(32),
            "permissions": "users:read",
            "created_at": utcnow(),
        }
        for name in names
    ]

    async def work(db: Db) -> None:
        await db.execute_many(insert(_CREDENTIALS), rows)

    await way_in(database, work)
    assert [(await _stored(database, name)) is not None for name in names] == [True] * 3


async def test_reads_outside_a_unit_of_work_write_no_batch(app: LisanApp) -> None:
    with pytest.raises(TypeError, match="write nothing"):
        await app.services.resources.database.reads.execute_many(insert(_CREDENTIALS), [{}])


async def test_reads_together_answer_as_reads_alone(app: LisanApp) -> None:
    database = app.services.resources.database
    name = f"together-{uuid.uuid4().hex[:8]}"
    async with database.transaction() as db:
        await insert_record(db, _credential(name))
    async with database.reads_together() as db:
        first = (await db.execute(_NAMED, {"name": name})).first()
        second = (await db.execute(_NAMED, {"name": name})).first()
    alone = (await database.reads.execute(_NAMED, {"name": name})).first()
    assert first is not None
    assert second is not None
    assert alone is not None
    assert tuple(first) == tuple(second) == tuple(alone)
