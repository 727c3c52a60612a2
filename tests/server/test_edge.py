"""The request edge: request ids, body limits while reading, error rendering, access logs."""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import APIRouter, Query, Request
from sqlalchemy.exc import OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout
from starlette.types import Message, Receive, Scope, Send

from lisan.app import LisanApp
from lisan.commands.endpoints import COMMAND_BODY_LIMIT
from lisan.core.errors import Conflict
from lisan.core.schemas import StrictModel
from lisan.core.settings import Settings
from lisan.deps import JsonBody
from lisan.server.edge import (
    BODY_IDLE_TIMEOUT_S,
    BODY_TIMEOUT_S,
    JSON_BODY_LIMIT,
    BodyTimeouts,
    RequestEdge,
)
from lisan.server.error_handlers import OUTAGE, OVERLOADED
from tests.fixtures.app import client_for


class EchoBody(StrictModel):
    name: str
    count: int


def _test_router() -> APIRouter:
    router = APIRouter()

    @router.get("/test/boom")
    async def boom() -> None:
        raise RuntimeError("SELECT secret FROM users -- provider said: key sk-123")

    @router.post("/test/echo")
    async def echo(body: JsonBody[EchoBody]) -> dict[str, object]:
        return body.model_dump()

    @router.get("/test/query")
    async def query(n: int = Query(ge=1)) -> dict[str, int]:
        return {"n": n}

    @router.get("/test/locked")
    async def locked() -> None:
        raise OperationalError("UPDATE users SET ...", {}, Exception("database is locked"))

    @router.get("/test/no-connection")
    async def no_connection() -> None:
        raise PoolTimeout("QueuePool limit of size 1 overflow 0 reached, connection timed out")

    @router.get("/test/refused")
    async def refused() -> None:
        raise OperationalError("SELECT 1", {}, ConnectionRefusedError("connection refused"))

    @router.get("/test/conflict")
    async def conflict() -> None:
        raise Conflict("still running", headers={"Retry-After": "2"})

    return router


@pytest.fixture
async def edge_client(app: LisanApp) -> AsyncIterator[httpx.AsyncClient]:
    app.fastapi.include_router(_test_router())
    async with client_for(app) as http:
        yield http


async def test_client_uuid_is_echoed(edge_client: httpx.AsyncClient) -> None:
    rid = str(uuid.uuid4())
    response = await edge_client.get("/health", headers={"X-Request-ID": rid})
    assert response.headers["x-request-id"] == rid


async def test_a_non_uuid_request_id_is_replaced(edge_client: httpx.AsyncClient) -> None:
    response = await edge_client.get("/nope", headers={"X-Request-ID": "not-a-uuid"})
    assert response.status_code == 404
    assert response.json() == {"error": "not found"}
    assert uuid.UUID(response.headers["x-request-id"])
    assert response.headers["x-request-id"] != "not-a-uuid"


async def test_every_request_gets_a_fresh_id(edge_client: httpx.AsyncClient) -> None:
    first = await edge_client.get("/health")
    second = await edge_client.get("/health")
    assert first.headers["x-request-id"] != second.headers["x-request-id"]


async def test_method_not_allowed_is_a_json_405(edge_client: httpx.AsyncClient) -> None:
    response = await edge_client.delete("/health")
    assert response.status_code == 405
    assert response.json() == {"error": "method not allowed"}
    assert "x-request-id" in response.headers


async def test_an_unexpected_failure_leaks_nothing(
    edge_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.ERROR, logger="lisan.error"):
        response = await edge_client.get("/test/boom")
    assert response.status_code == 500
    assert response.json() == {"error": "internal error"}
    assert "secret" not in response.text
    assert "Traceback" not in response.text
    assert uuid.UUID(response.headers["x-request-id"])
    assert any(record.exc_info for record in caplog.records), "the failure is logged for operators"


async def test_body_validation_is_400_not_422(edge_client: httpx.AsyncClient) -> None:
    response = await edge_client.post("/test/echo", json={"name": "x", "count": "1"})
    assert response.status_code == 400
    assert response.json()["error"].startswith("count:")
    assert set(response.json()) == {"error"}


@pytest.mark.parametrize(
    "body",
    [
        b"{not json",
        b'{"name": "x", "count": 1, "extra": true}',
        b'{"name": 12, "count": 1}',
        b'{"name": "x", "count": true}',
        b"[]",
        b"",
    ],
)
async def test_bad_bodies_are_400(edge_client: httpx.AsyncClient, body: bytes) -> None:
    response = await edge_client.post(
        "/test/echo", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 400
    assert list(response.json()) == ["error"]


async def test_a_good_body_passes(edge_client: httpx.AsyncClient) -> None:
    response = await edge_client.post("/test/echo", json={"name": "x", "count": 2})
    assert response.status_code == 200
    assert response.json() == {"name": "x", "count": 2}


async def test_query_validation_is_400(edge_client: httpx.AsyncClient) -> None:
    response = await edge_client.get("/test/query", params={"n": "zero"})
    assert response.status_code == 400
    assert response.json()["error"].startswith("query.n:")


@pytest.mark.parametrize("path", ["/test/locked", "/test/no-connection"])
async def test_a_busy_database_is_a_503_to_retry_not_a_500(
    edge_client: httpx.AsyncClient, path: str
) -> None:
    response = await edge_client.get(path)
    assert response.status_code == 503
    assert response.json() == {"error": OVERLOADED}
    assert int(response.headers["retry-after"]) >= 1
    assert "UPDATE" not in response.text
    assert "QueuePool" not in response.text


async def test_a_process_out_of_connections_is_overloaded_not_a_database_outage(
    edge_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    """Under a load that saturates the process, pool waits ran out while PostgreSQL was idle,
    and the log said "database unavailable": the operator was sent to the wrong place."""
    with caplog.at_level(logging.WARNING, logger="lisan.error"):
        answers = [await edge_client.get("/test/no-connection") for _ in range(5)]
    assert {a.json()["error"] for a in answers} == {OVERLOADED}
    messages = [record.getMessage() for record in caplog.records]
    assert messages == ["service overloaded: no database connection free in time"]


async def test_a_pool_wait_during_an_outage_is_part_of_the_outage(
    edge_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="lisan.error"):
        refused = await edge_client.get("/test/refused")
        waited = await edge_client.get("/test/no-connection")
    assert (refused.status_code, waited.status_code) == (503, 503)
    assert refused.json()["error"] == waited.json()["error"] == OUTAGE
    assert [record.getMessage() for record in caplog.records] == ["database unavailable"]


async def test_lisan_errors_keep_their_headers(edge_client: httpx.AsyncClient) -> None:
    response = await edge_client.get("/test/conflict")
    assert response.status_code == 409
    assert response.json() == {"error": "still running"}
    assert response.headers["retry-after"] == "2"


async def test_a_20kb_json_body_is_413(edge_client: httpx.AsyncClient) -> None:
    body = json.dumps({"name": "x" * 20_000, "count": 1})
    response = await edge_client.post(
        "/test/echo", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json() == {"error": "request body too large"}
    assert uuid.UUID(response.headers["x-request-id"])


async def test_access_log_carries_the_request_id(
    edge_client: httpx.AsyncClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="lisan.access"):
        response = await edge_client.get("/health")
    records = [r for r in caplog.records if r.name == "lisan.access"]
    assert records, "one access log line per request"
    record = records[-1]
    assert record.request_id == response.headers["x-request-id"]  # type: ignore[attr-defined]
    assert record.status == 200  # type: ignore[attr-defined]
    assert record.path == "/health"  # type: ignore[attr-defined]


# The limits themselves, against a bare ASGI app that reports how much body it was handed.


async def _body_length_app(scope: Scope, receive: Receive, send: Send) -> None:
    size = 0
    while True:
        message = await receive()
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    payload = json.dumps({"received": size}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": payload})


@pytest.fixture
async def limit_client() -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=RequestEdge(_body_length_app))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        yield http


def _chunks(total: int, chunk: int = 4096) -> AsyncIterator[bytes]:
    async def generate() -> AsyncIterator[bytes]:
        sent = 0
        while sent < total:
            size = min(chunk, total - sent)
            sent += size
            yield b"a" * size

    return generate()


@pytest.mark.parametrize(
    ("path", "limit"),
    [("/v1/users/me", JSON_BODY_LIMIT), ("/v1/commands", COMMAND_BODY_LIMIT)],
)
async def test_limits_at_the_boundary(
    limit_client: httpx.AsyncClient, path: str, limit: int
) -> None:
    at_limit = await limit_client.post(path, content=b"a" * limit)
    assert at_limit.json() == {"received": limit}
    over = await limit_client.post(path, content=b"a" * (limit + 1))
    assert over.status_code == 413


async def test_limit_holds_without_content_length(limit_client: httpx.AsyncClient) -> None:
    response = await limit_client.post("/v1/vocabulary", content=_chunks(JSON_BODY_LIMIT * 2))
    assert response.status_code == 413


async def test_limit_holds_when_content_length_lies(limit_client: httpx.AsyncClient) -> None:
    response = await limit_client.post(
        "/v1/commands",
        content=_chunks(COMMAND_BODY_LIMIT + 10),
        headers={"content-length": "100"},
    )
    assert response.status_code == 413


async def test_a_declared_oversize_body_is_refused_before_reading() -> None:
    reads = 0

    async def receive() -> Message:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"", "more_body": True}

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/v1/app-grants",
        "headers": [(b"content-length", str(JSON_BODY_LIMIT + 1).encode())],
    }
    await RequestEdge(_body_length_app)(scope, receive, send)
    assert reads == 0
    assert sent[0]["status"] == 413
    # The body that may follow is not a next request: the connection closes after the answer.
    assert (b"connection", b"close") in sent[0]["headers"]


async def test_the_edge_stops_reading_once_over_the_limit() -> None:
    """An endless body is refused after limit + one chunk, not read to the end."""
    reads = 0

    async def receive() -> Message:
        nonlocal reads
        reads += 1
        return {"type": "http.request", "body": b"a" * 1024, "more_body": True}

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/vocabulary", "headers": []}
    await RequestEdge(_body_length_app)(scope, receive, send)
    assert sent[0]["status"] == 413
    assert (b"connection", b"close") in sent[0]["headers"]
    assert reads == JSON_BODY_LIMIT // 1024 + 1


async def _path_app(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": scope["path"].encode()})


async def test_an_encoded_slash_stays_one_path_segment() -> None:
    transport = httpx.ASGITransport(app=RequestEdge(_path_app))
    async with httpx.AsyncClient(transport=transport, base_url="http://t") as http:
        kept = await http.get("/v1/admin/users/a%2Fb%20c/suspend")
        plain = await http.get("/v1/admin/users/a%20b")
    assert kept.text == "/v1/admin/users/a%2Fb c/suspend"
    assert plain.text == "/v1/admin/users/a b"


# Time bounds on the body, and a client that leaves before its body is complete.


def _http_scope(method: str, path: str, headers: list[tuple[bytes, bytes]]) -> Scope:
    return {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("203.0.113.7", 50000),
        "server": ("testserver", 80),
        "state": {},
    }


async def test_a_client_gone_mid_body_is_logged_as_499_and_the_app_never_runs(
    app: LisanApp, caplog: pytest.LogCaptureFixture
) -> None:
    """Issue: the edge replayed the disconnect to the app, Starlette raised ClientDisconnect and
    it was logged as an unhandled error with status 500."""
    ran: list[str] = []
    router = APIRouter()

    @router.post("/test/record")
    async def record(request: Request) -> dict[str, int]:
        ran.append("handler")
        return {"size": len(await request.body())}

    app.fastapi.include_router(router)
    messages: list[Message] = [
        {"type": "http.request", "body": b'{"name": "x", ', "more_body": True},
        {"type": "http.disconnect"},
    ]

    async def receive() -> Message:
        return messages.pop(0)

    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    scope = _http_scope("POST", "/test/record", [(b"content-type", b"application/json")])
    with caplog.at_level(logging.DEBUG):
        await app(scope, receive, send)
    assert ran == [], "the app ran for a client that had gone"
    assert sent == [], "nobody is left to answer"
    assert "unhandled error" not in [r.getMessage() for r in caplog.records]
    assert not [r for r in caplog.records if r.exc_info], "no traceback"
    assert not [r for r in caplog.records if r.levelno > logging.INFO]
    access = [r for r in caplog.records if r.name == "lisan.access"]
    assert [r.status for r in access] == [499]  # type: ignore[attr-defined]


def _stalling(chunks: list[bytes], every_s: float) -> tuple[Receive, list[float]]:
    """A receive() that yields `chunks`, one every `every_s`, then nothing ever again."""
    times: list[float] = []

    async def receive() -> Message:
        if not chunks:
            await asyncio.Event().wait()
        await asyncio.sleep(every_s)
        times.append(time.monotonic())
        return {"type": "http.request", "body": chunks.pop(0), "more_body": True}

    return receive, times


async def _call(edge: RequestEdge, scope: Scope, receive: Receive) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async with asyncio.timeout(5):  # without a bound the edge would wait forever
        await edge(scope, receive, send)
    return sent


async def test_a_body_that_stops_arriving_is_408_and_closes_the_connection() -> None:
    edge = RequestEdge(_body_length_app, body_timeouts=BodyTimeouts(idle_s=0.1, total_s=5))
    receive, _ = _stalling([b'{"na', b'me"'], every_s=0.01)
    started = time.monotonic()
    scope = _http_scope("POST", "/v1/vocabulary", [(b"content-length", b"100")])
    sent = await _call(edge, scope, receive)
    assert 0.1 <= time.monotonic() - started < 1
    assert sent[0]["status"] == 408
    headers = dict(sent[0]["headers"])
    assert headers[b"connection"] == b"close"
    assert uuid.UUID(headers[b"x-request-id"].decode())
    assert json.loads(sent[1]["body"]) == {"error": "the request was not received in time"}


async def test_a_trickled_body_is_cut_off_at_the_total_bound() -> None:
    """Each chunk comes well within the idle bound; the body as a whole does not."""
    edge = RequestEdge(_body_length_app, body_timeouts=BodyTimeouts(idle_s=1, total_s=0.3))
    receive, times = _stalling([b"a"] * 1000, every_s=0.05)
    started = time.monotonic()
    scope = _http_scope("POST", "/v1/commands", [(b"transfer-encoding", b"chunked")])
    sent = await _call(edge, scope, receive)
    assert 0.3 <= time.monotonic() - started < 1.3
    assert len(times) >= 3
    assert sent[0]["status"] == 408


def test_the_default_body_timeouts_are_the_settings_defaults() -> None:
    defaults = Settings.model_fields
    assert BodyTimeouts() == BodyTimeouts(BODY_IDLE_TIMEOUT_S, BODY_TIMEOUT_S)
    assert defaults["body_idle_timeout_s"].default == BODY_IDLE_TIMEOUT_S
    assert defaults["body_timeout_s"].default == BODY_TIMEOUT_S
    assert RequestEdge(_body_length_app).body_timeouts == BodyTimeouts()


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("OPTIONS", "/v1/app-grants", "GET, POST"),
        ("PUT", "/v1/vocabulary", "GET, POST"),
        ("PUT", f"/v1/vocabulary/{uuid.UUID(int=7)}", "DELETE, PATCH"),
        ("DELETE", "/v1/users/me", "GET"),
    ],
)
async def test_a_405_names_every_method_of_the_path(
    client: httpx.AsyncClient, method: str, path: str, allowed: str
) -> None:
    """Found by the contract fuzz: Starlette named only the first route's methods (a path with
    GET and POST routes answered `Allow: POST`)."""
    response = await client.request(method, path)
    assert response.status_code == 405
    assert response.json() == {"error": "method not allowed"}
    assert response.headers["allow"] == allowed
