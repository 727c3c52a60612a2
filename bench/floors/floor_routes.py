"""The raw-driver floors for every route `bench.routes` measures, in one Starlette app.

`GET /v1/users/me` and `GET /v1/vocabulary` are the shared floor's own (`floor_app.py` beside
this module, a verbatim copy of `../shared/bench/floor_app.py`): its routes, its connection, its
token look-up. This module, written here and held to the house's lint, adds in its style (raw
driver, nothing beyond Starlette, orjson) the floors the issue asks to be written here, each
doing the database work its route does:

- `GET /v1/app-grants`: the token look-up, then the latest decision per package of the user
  (one indexed query, as `lisan.grants.repository` asks it), sorted by package name;
- `GET /v1/billing/entitlement`: the token look-up, the user's latest subscription row, the
  count of commands billed in the current month;
- `POST /v1/telemetry/events`: the token look-up, the JSON body checked for its fields, the
  event appended to an in-memory buffer and answered 202; one background task writes the
  buffer in batches (one multi-row insert per batch, ids already taken left alone), as the
  service's writer does.

Make the data (`python -m bench.floors.floor_routes setup`, into a fresh database named by
FLOOR_DB or FLOOR_PG as for the shared floor; not `make`, which the shared floor's module acts
on as it is imported), then serve `bench.floors.floor_routes:app` under uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import sys
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from bench.floors import floor_app
from bench.floors.floor_app import UNAUTHORIZED, lookup, state

SESSION_USER = "select user_id from sessions where token_hash = {p}"
TOKEN_HASH = hashlib.sha256(floor_app.TOKEN.encode()).hexdigest()
PACKAGES = [f"com.example.app{i:02d}" for i in range(8)]
SCHEMA = (
    "create table if not exists app_grants(id integer primary key, user_id text, "
    "package_name text, granted boolean, created_at text)",
    "create index if not exists app_grants_user on app_grants(user_id, package_name)",
    "create table if not exists subscriptions(id integer primary key, user_id text, status text, "
    "renews_at text, command_quota integer, created_at text)",
    "create index if not exists subscriptions_user on subscriptions(user_id, id)",
    "create table if not exists billed_commands(bill_id text primary key, user_id text, "
    "billed_at text)",
    "create index if not exists billed_user on billed_commands(user_id, billed_at)",
    "create table if not exists command_events(id text primary key, user_id text, "
    "created_at text, outcome text, duration_ms integer, confidence real, client_timings text, "
    "reported_at text)",
)
GRANTS = (
    "select package_name, granted, created_at from app_grants where id in "
    "(select max(id) from app_grants where user_id = {p} group by package_name)"
)
LATEST_SUBSCRIPTION = (
    "select status, renews_at, command_quota from subscriptions where user_id = {p} "
    "order by id desc limit 1"
)
BILLED = (
    "select count(*) from billed_commands where user_id = {p} and billed_at >= {p2} "
    "and billed_at < {p3}"
)
INSERT_EVENT = (
    "insert into command_events (id, user_id, created_at, outcome, duration_ms, confidence, "
    "client_timings, reported_at) values ({values}) on conflict do nothing"
)
OUTCOMES = frozenset({"done", "failed", "rejected", "blocked", "cancelled"})
BATCH_SIZE, LINGER_S = 500, 0.05  # the service writer's


def _grant_rows(user_id: str) -> list[tuple[Any, ...]]:
    """Two decisions per package (granted, then for every other one revoked and granted again)."""
    rows = []
    for number, package in enumerate(PACKAGES):
        rows.append((package, True))
        if number % 2:
            rows += [(package, False), (package, True)]
    return [(i + 1, user_id, p, g, floor_app.STAMP) for i, (p, g) in enumerate(rows)]


async def _make_postgres(dsn: str) -> None:
    import asyncpg

    db = await asyncpg.connect(dsn)
    try:
        user_id = await db.fetchval(SESSION_USER.format(p="$1"), TOKEN_HASH)
        for statement in SCHEMA:
            await db.execute(statement.replace("integer primary key", "bigint primary key"))
        await db.execute("truncate app_grants, command_events")
        await db.executemany("insert into app_grants values ($1,$2,$3,$4,$5)", _grant_rows(user_id))
    finally:
        await db.close()


def _make_sqlite(path: str) -> None:
    import sqlite3

    with contextlib.closing(sqlite3.connect(path)) as db:
        user_id = db.execute(SESSION_USER.format(p="?"), (TOKEN_HASH,)).fetchone()[0]
        for statement in SCHEMA:
            db.execute(statement)
        db.execute("delete from app_grants")
        db.executemany("insert into app_grants values (?,?,?,?,?)", _grant_rows(user_id))
        db.commit()


async def _authenticated(request: Request) -> Any:
    auth = request.headers.get("authorization", "")
    if not auth.startswith("Bearer "):
        return None
    token_hash = hashlib.sha256(auth[7:].encode()).hexdigest()
    row = await lookup(token_hash)  # type: ignore[no-untyped-call]  # the shared floor's own
    if row is None or row[2] != request.headers.get("x-install-id"):
        return None
    return row


def _json(body: Any, status: int = 200) -> Response:
    return Response(
        orjson.dumps(body),
        status,
        media_type="application/json",
        headers={"x-request-id": str(uuid.uuid4())},
    )


async def _fetch(query: str, *args: Any) -> list[Any]:
    if "pool" in state:
        marks = {"p": "$1", "p2": "$2", "p3": "$3"}
        return list(await state["pool"].fetch(query.format(**marks), *args))
    async with state["db"].execute(query.format(p="?", p2="?", p3="?"), args) as cursor:
        return list(await cursor.fetchall())


async def grants(request: Request) -> Response:
    user = await _authenticated(request)
    if user is None:
        return Response(UNAUTHORIZED, 401, media_type="application/json")
    rows = sorted(await _fetch(GRANTS, user[0]), key=lambda row: row[0])
    body = [{"package_name": r[0], "granted": bool(r[1]), "created_at": r[2]} for r in rows]
    return _json({"grants": body})


async def entitlement(request: Request) -> Response:
    user = await _authenticated(request)
    if user is None:
        return Response(UNAUTHORIZED, 401, media_type="application/json")
    latest = await _fetch(LATEST_SUBSCRIPTION, user[0])
    now = datetime.now(UTC)
    start = now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    (used,) = (await _fetch(BILLED, user[0], start.isoformat(), now.isoformat()))[0]
    row = latest[0] if latest else (None, None, None)
    body = {
        "enforcement": "off",
        "state": "NONE" if not latest else "ACTIVE",
        "status": row[0],
        "renews_at": row[1],
        "command_quota": row[2],
        "commands_used": used,
    }
    return _json(body)


BUFFER: list[tuple[Any, ...]] = []
WAKE = asyncio.Event()


async def telemetry(request: Request) -> Response:
    user = await _authenticated(request)
    if user is None:
        return Response(UNAUTHORIZED, 401, media_type="application/json")
    try:
        event = orjson.loads(await request.body())
        outcome, duration = event["outcome"], event["duration_ms"]
        timings = event["stage_timings"]
        ok = outcome in OUTCOMES and isinstance(duration, int) and isinstance(timings, dict)
    except (orjson.JSONDecodeError, KeyError, TypeError):
        ok = False
    if not ok:
        return Response(b'{"error":"invalid"}', 400, media_type="application/json")
    now = datetime.now(UTC).isoformat()
    event_id = event.get("request_id") or str(uuid.uuid4())
    BUFFER.append(
        (
            event_id,
            user[0],
            now,
            outcome,
            duration,
            event.get("confidence"),
            orjson.dumps(timings).decode(),
            now,
        )
    )
    WAKE.set()
    return _json({"status": "buffered"}, 202)


async def _write(batch: list[tuple[Any, ...]]) -> None:
    if "pool" in state:
        marks = ", ".join(f"${i}" for i in range(1, 9))
        async with state["pool"].acquire() as db, db.transaction():
            await db.executemany(INSERT_EVENT.format(values=marks), batch)
        return
    db = state["db"]
    await db.executemany(INSERT_EVENT.format(values=", ".join("?" * 8)), batch)
    await db.commit()


async def _writer() -> None:
    while True:
        await WAKE.wait()
        await asyncio.sleep(LINGER_S)
        WAKE.clear()
        while BUFFER:
            batch = BUFFER[:BATCH_SIZE]
            del BUFFER[:BATCH_SIZE]
            await _write(batch)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    async with floor_app.lifespan(app):
        task = asyncio.create_task(_writer())
        yield
        task.cancel()


app = Starlette(
    routes=[
        *floor_app.app.routes,
        Route("/v1/app-grants", grants),
        Route("/v1/billing/entitlement", entitlement),
        Route("/v1/telemetry/events", telemetry, methods=["POST"]),
    ],
    lifespan=lifespan,
)


if __name__ == "__main__" and sys.argv[1:] == ["setup"]:
    if os.environ.get("FLOOR_PG"):
        asyncio.run(floor_app.make_postgres(os.environ["FLOOR_PG"]))  # type: ignore[no-untyped-call]
        asyncio.run(_make_postgres(os.environ["FLOOR_PG"]))
    else:
        floor_app.make_sqlite(os.environ["FLOOR_DB"])  # type: ignore[no-untyped-call]
        _make_sqlite(os.environ["FLOOR_DB"])
