"""`granted_packages`, the command pipeline's check: which of some packages the user currently
grants, in one query served by ix_app_grants_user_package."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import event, insert, text
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.db.store import unit_of_work
from lisan.grants.models import AppGrant
from lisan.grants.repository import GRANTED_AMONG
from lisan.grants.service import granted_packages
from lisan.users.models import User
from tests.fixtures.devices import register
from tests.fixtures.grants import recorded

INDEX = "ix_app_grants_user_package"


async def granted(engine: AsyncEngine, user_id: uuid.UUID, packages: Collection[str]) -> set[str]:
    async with unit_of_work(engine) as db:
        return await granted_packages(db, user_id, packages)


async def test_grant_revoke_and_regrant(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    asked = ["com.a", "com.b", "com.c", "com.never"]
    assert await granted(admin_engine, device.user_id, asked) == set()
    await recorded(client, device, "com.a", True)
    await recorded(client, device, "com.b", True)
    assert await granted(admin_engine, device.user_id, asked) == {"com.a", "com.b"}
    await recorded(client, device, "com.b", False)
    await recorded(client, device, "com.c", False)
    assert await granted(admin_engine, device.user_id, asked) == {"com.a"}
    await recorded(client, device, "com.b", True)
    await recorded(client, device, "com.c", True)
    await recorded(client, device, "com.a", False)
    assert await granted(admin_engine, device.user_id, asked) == {"com.b", "com.c"}


async def test_only_packages_asked_about_are_answered(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await recorded(client, device, "com.a", True)
    await recorded(client, device, "com.b", True)
    assert await granted(admin_engine, device.user_id, ["com.a"]) == {"com.a"}
    assert await granted(admin_engine, device.user_id, {"com.b", "com.z"}) == {"com.b"}
    assert await granted(admin_engine, device.user_id, ("com.A", "com.a", "com.a")) == {"com.a"}
    assert await granted(admin_engine, device.user_id, []) == set()
    assert await granted(admin_engine, device.user_id, frozenset()) == set()


async def test_other_users_grants_never_count(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    mine = await register(client)
    theirs = await register(client)
    await recorded(client, theirs, "com.a", True)
    await recorded(client, theirs, "com.b", True)
    await recorded(client, mine, "com.b", False)
    asked = {"com.a", "com.b"}
    assert await granted(admin_engine, mine.user_id, asked) == set()
    # Their later revocation does not end my grant, nor mine theirs.
    await recorded(client, mine, "com.a", True)
    await recorded(client, theirs, "com.a", False)
    assert await granted(admin_engine, mine.user_id, asked) == {"com.a"}
    assert await granted(admin_engine, theirs.user_id, asked) == {"com.b"}
    assert await granted(admin_engine, uuid.uuid4(), asked) == set()


async def test_the_sequence_decides_not_the_clock(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    far_future = datetime(2999, 1, 1, tzinfo=UTC)
    long_ago = datetime(2000, 1, 1, tzinfo=UTC)
    async with admin_engine.begin() as connection:
        await connection.execute(
            insert(AppGrant),
            [
                # Inserted in this order, so ids ascend: revoke last, with the oldest clock.
                {
                    "user_id": device.user_id,
                    "package_name": "com.a",
                    "granted": True,
                    "created_at": far_future,
                },
                {
                    "user_id": device.user_id,
                    "package_name": "com.a",
                    "granted": False,
                    "created_at": long_ago,
                },
            ],
        )
    assert await granted(admin_engine, device.user_id, ["com.a"]) == set()


async def test_it_is_one_query(client: httpx.AsyncClient, admin_engine: AsyncEngine) -> None:
    device = await register(client)
    for name in ("com.a", "com.b", "com.c"):
        await recorded(client, device, name, True)
    statements: list[str] = []

    def count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    event.listen(admin_engine.sync_engine, "before_cursor_execute", count)
    try:
        result = await granted(admin_engine, device.user_id, ["com.a", "com.b", "com.x"])
    finally:
        event.remove(admin_engine.sync_engine, "before_cursor_execute", count)
    assert result == {"com.a", "com.b"}
    assert len(statements) == 1, statements


async def _populate(engine: AsyncEngine, users: int, packages: int, decisions: int) -> uuid.UUID:
    """Many users, each with several decisions on many packages; returns one of the users."""
    now = datetime.now(UTC)
    user_ids = [uuid.uuid4() for _ in range(users)]
    async with engine.begin() as connection:
        await connection.execute(
            insert(User),
            [
                {
                    "id": user_id,
                    "install_id": f"inst-plan-{n:08d}",
                    "status": "active",
                    "locale": "en-US",
                    "speech_rate": 100,
                    "wake_word": "Hey Lisan",
                    "registered_at": now,
                }
                for n, user_id in enumerate(user_ids)
            ],
        )
        await connection.execute(
            insert(AppGrant),
            [
                {
                    "user_id": user_id,
                    "package_name": f"com.app{p}",
                    "granted": d % 2 == 0,
                    "created_at": now + timedelta(seconds=d),
                }
                for d in range(decisions)
                for user_id in user_ids
                for p in range(packages)
            ],
        )
    return user_ids[users // 2]


async def _plan(engine: AsyncEngine, database_kind: str, statement: Any) -> list[str]:
    """The database's own plan for `statement`, one line a step."""
    sql = statement.compile(dialect=engine.dialect, compile_kwargs={"literal_binds": True})
    async with engine.connect() as connection:
        if database_kind == "postgresql":
            # Fresh statistics, so the planner sees the table as it is (not as an empty one).
            await connection.execute(text("ANALYZE app_grants"))
            return list((await connection.execute(text(f"EXPLAIN {sql}"))).scalars())
        rows = (await connection.execute(text(f"EXPLAIN QUERY PLAN {sql}"))).all()
        return [str(row[-1]) for row in rows]


async def test_the_query_is_served_by_the_user_package_index(
    admin_engine: AsyncEngine, database_kind: str
) -> None:
    user_id = await _populate(admin_engine, users=200, packages=10, decisions=3)
    assert await granted(admin_engine, user_id, ["com.app1", "com.app2", "com.nope"]) == {
        "com.app1",
        "com.app2",
    }
    statement = GRANTED_AMONG.params(user_id=user_id, packages=["com.app1", "com.app2"])
    plan = await _plan(admin_engine, database_kind, statement)
    text_plan = "\n".join(plan)
    if database_kind == "postgresql":
        # "Index Scan", "Index Only Scan" or "Bitmap Index Scan" using the index; no full scan.
        assert any(
            f"Scan using {INDEX}" in line or f"Index Scan on {INDEX}" in line for line in plan
        ), text_plan
        assert "Seq Scan" not in text_plan, text_plan
    else:
        assert any(
            line.startswith("SEARCH app_grants") and f"INDEX {INDEX}" in line for line in plan
        ), text_plan
        assert "SCAN app_grants" not in text_plan, text_plan
