"""The command path's units of work and look-ups speak asyncpg itself on PostgreSQL
(`db.raw_postgres`): on a frozen server they fail within the database bound as SQLAlchemy's
OperationalError or a connect timeout (a 503); a connection cut off mid-statement or ended by
the server is never handed out again; the next unit of work after the server is back
succeeds."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest
from sqlalchemy import Column, MetaData, String, Table, Uuid, event, insert, select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.pool import QueuePool

from lisan.core.lanes import Lane
from lisan.db.database import DATABASE_TIMEOUT_S, create_engine
from lisan.db.database_trouble import DATABASE_UNAVAILABLE
from lisan.db.handle import Db
from lisan.db.lookups import Lookups
from lisan.db.writer import Writer
from tests.fixtures.private_servers import PrivatePostgres

SLACK_S = 3.0
_NOTES = Table("notes", MetaData(), Column("id", Uuid, primary_key=True), Column("body", String))
_ADD = insert(_NOTES)
_ALL = select(_NOTES.c.body)


@pytest.fixture
async def notes(
    postgres: PrivatePostgres, lane: Lane
) -> AsyncIterator[tuple[Writer, Lookups, str]]:
    database = await postgres.new_database()
    setup = await asyncpg.connect(postgres.dsn(database))
    await setup.execute("CREATE TABLE notes (id uuid PRIMARY KEY, body text)")
    await setup.close()
    engine = create_engine(postgres.url(database))
    writer, lookups = Writer(engine, blocking=lane), Lookups(engine)
    try:
        yield writer, lookups, database
    finally:
        await engine.dispose()


async def _add(db: Db, body: str) -> None:
    await db.execute(_ADD, {"id": uuid.uuid4(), "body": body})


async def test_a_unit_of_work_on_a_frozen_postgres_fails_within_the_bound_and_recovers(
    postgres: PrivatePostgres, notes: tuple[Writer, Lookups, str]
) -> None:
    writer, lookups, _ = notes
    await writer.run(lambda db: _add(db, "before"))  # a pooled connection, open and warm
    postgres.freeze()
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError):  # the statement's bound, on an open connection
            await writer.run(lambda db: _add(db, "frozen"))
        unit_s = time.monotonic() - started
        started = time.monotonic()
        with pytest.raises(DATABASE_UNAVAILABLE):  # here opening a new one: its own bound
            (await lookups.execute(_ALL, {})).all()
        lookup_s = time.monotonic() - started
    finally:
        postgres.thaw()
    assert unit_s < DATABASE_TIMEOUT_S + SLACK_S
    assert lookup_s < DATABASE_TIMEOUT_S + SLACK_S
    await writer.run(lambda db: _add(db, "after"))
    rows = (await lookups.execute(_ALL, {})).all()
    assert sorted(row.body for row in rows) == ["after", "before"]


async def test_a_connection_the_server_ended_is_a_503_once_and_never_handed_out_again(
    postgres: PrivatePostgres, notes: tuple[Writer, Lookups, str]
) -> None:
    writer, _, database = notes
    await writer.run(lambda db: _add(db, "before"))
    admin = await asyncpg.connect(postgres.dsn(database))
    try:
        await admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
    finally:
        await admin.close()
    failures = 0
    for _ in range(5):  # the pool's one open connection was ended: it fails once, then goes
        try:
            await writer.run(lambda db: _add(db, "after"))
        except OperationalError:
            failures += 1
    assert failures == 1


async def test_a_checkout_takes_the_pools_connection_without_an_engine_connection(
    notes: tuple[Writer, Lookups, str],
) -> None:
    """Units of work and look-ups take a connection from the engine's pool itself (its bounds,
    its checkout and checkin events) and give it back; no engine `Connection` is made for
    them."""
    writer, lookups, _ = notes
    engine = writer.engine.sync_engine
    connections: list[object] = []
    checkouts: list[object] = []
    event.listen(engine, "engine_connect", connections.append)
    event.listen(engine.pool, "checkout", lambda *args: checkouts.append(args))
    await writer.run(lambda db: _add(db, "pooled"))
    rows = (await lookups.execute(_ALL, {})).all()
    assert [row.body for row in rows] == ["pooled"]
    assert len(checkouts) == 2
    assert connections == []
    assert isinstance(engine.pool, QueuePool)
    assert engine.pool.checkedout() == 0  # both given back


async def _failures_each_way(
    url: str, expected: type[BaseException] | tuple[type[BaseException], ...], *, lane: Lane
) -> list[BaseException]:
    """What `engine.connect()`, a look-up and a unit of work each raise against `url` (each an
    `expected`), in that order, with nothing left checked out of the pool."""
    engine = create_engine(url)
    raised: list[BaseException] = []
    try:
        for attempt in (
            _connect_only(engine),
            Lookups(engine).execute(_ALL, {}),
            Writer(engine, blocking=lane).run(lambda db: _add(db, "never")),
        ):
            with pytest.raises(expected) as failure:
                await attempt
            raised.append(failure.value)
        pool = engine.sync_engine.pool
        assert isinstance(pool, QueuePool)
        assert pool.checkedout() == 0
    finally:
        await engine.dispose()
    return raised


async def _connect_only(engine: AsyncEngine) -> None:
    async with engine.connect():
        pass


async def test_a_refused_connection_is_raised_as_engine_connect_raises_it(
    unused_tcp_port: int, lane: Lane
) -> None:
    """A server that is not there: a look-up and a unit of work fail as the engine's own
    connect does (a 503), with nothing left checked out."""
    by_engine, by_lookup, by_unit = await _failures_each_way(
        f"postgresql+asyncpg://postgres@127.0.0.1:{unused_tcp_port}/lisan",
        DATABASE_UNAVAILABLE,
        lane=lane,
    )
    for raised in (by_lookup, by_unit):
        assert type(raised) is type(by_engine)


async def test_a_refused_login_is_raised_as_engine_connect_raises_it(
    postgres: PrivatePostgres, notes: tuple[Writer, Lookups, str], lane: Lane
) -> None:
    """A role the server does not know: the driver's error goes through the engine's own
    handlers, as `engine.connect()` sends it, for a look-up and for a unit of work alike."""
    _, _, database = notes
    url = make_url(postgres.url(database)).set(username="nobody_here")
    by_engine, by_lookup, by_unit = await _failures_each_way(
        url.render_as_string(hide_password=False), DBAPIError, lane=lane
    )
    assert isinstance(by_engine, DBAPIError)
    assert "nobody_here" in str(by_engine)
    for raised in (by_lookup, by_unit):
        assert isinstance(raised, DBAPIError)
        assert type(raised) is type(by_engine)
        assert type(raised.orig) is type(by_engine.orig)
