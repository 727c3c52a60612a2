"""Who may call a user route, walked over every user route of the app (found by its session
dependency, so a route added later is walked too): no live session with its install id is a
401 with the contract's challenge, a suspended account a 403, an account being deleted a 409
with Retry-After (except to repeat the deletion request), a user over their limit a 429 with
Retry-After while another user keeps their own budget. A refused call stores nothing and never
reaches the voice provider; its body is exactly `{"error": <message>}`.

The account status table as operators drive it: suspension keeps sessions and reinstating makes
the very same token work again; suspend and reinstate are idempotent, audited, and 409 once
the account is deleted.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan import deps
from lisan.app import ROUTERS, LisanApp
from lisan.core.settings import Settings
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.accounts import (
    account,
    mark_deleted,
    reinstate,
    set_account_status,
    suspend,
    user_row,
)
from tests.fixtures.admin import audit_of, audit_rows, bearer, user_path
from tests.fixtures.answers import assert_error, assert_retry_after, assert_unauthenticated
from tests.fixtures.app import lisan_app
from tests.fixtures.cases import Cases
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.commands import app_with, command, command_body
from tests.fixtures.contract import assert_matches_contract, contract
from tests.fixtures.devices import Device, ready_device, register
from tests.fixtures.rows import every_stored_text
from tests.fixtures.sessions import USER_ROUTES, call, session_rows
from tests.fixtures.vocabulary import created

# The session dependencies of the user routes; a deleted account may still repeat its
# deletion request (`deleting_user`).
SESSION_DEPENDENCIES: dict[Callable[..., Any], str] = {
    deps.current_user: "use",
    deps.refreshing_user: "refresh",
    deps.commanding_user: "command",
    deps.deleting_user: "delete data",
}
REPEATS_WHEN_DELETED = {"delete data"}


def _calls(dependant: Dependant) -> Iterator[Any]:
    yield dependant.call
    for sub in dependant.dependencies:
        yield from _calls(sub)


def _user_routes() -> list[tuple[str, str, str]]:
    """(method, path, purpose) of every route of the app behind a session dependency."""
    found = []
    for route in (route for router in ROUTERS for route in router.routes):
        if not isinstance(route, APIRoute):
            continue
        purposes = {SESSION_DEPENDENCIES.get(call) for call in _calls(route.dependant)} - {None}
        for method in sorted(route.methods or ()):
            for purpose in purposes:
                assert purpose is not None
                found.append((method, route.path, purpose))
    return found


USER_ROUTE_PURPOSES = _user_routes()
MATRIX = [
    pytest.param(method, path, status, id=f"{method} {path} {status}")
    for method, path, purpose in USER_ROUTE_PURPOSES
    for status in (401, 403, 409, 429)
    if not (status == 409 and purpose in REPEATS_WHEN_DELETED)
]

# A well-formed request of the routes that take one; any other route is called bare.
TERM = "Abebe"
TELEMETRY_EVENT = {
    "outcome": "done",
    "duration_ms": 1800,
    "confidence": 0.82,
    "stage_timings": {"capture": 900, "upload": 300, "execute": 600},
}
BODIES: dict[tuple[str, str], dict[str, Any]] = {
    ("POST", "/v1/commands"): command_body(),
    ("POST", "/v1/consent/grants"): {"scope": "audio_retention", "granted": True},
    ("POST", "/v1/app-grants"): {"package_name": "com.example.app", "granted": True},
    ("POST", "/v1/vocabulary"): {"term": "Kebede", "kind": "custom"},
    ("PATCH", "/v1/vocabulary/{termId}"): {"term": "Kebede"},
    ("POST", "/v1/telemetry/events"): TELEMETRY_EVENT,
}
QUERIES: dict[tuple[str, str], dict[str, str]] = {
    ("GET", "/v1/consent/grants/current"): {"scope": "audio_retention"},
}


@dataclass
class Caller:
    """A registered device, granted Telegram, owning one vocabulary term."""

    device: Device
    term_id: str

    def path(self, template: str) -> str:
        """`template` with its parameters filled: a term is the caller's own."""
        filled = template.replace("{termId}", self.term_id)
        while "{" in filled:
            head, _, rest = filled.partition("{")
            filled = head + str(uuid.uuid4()) + rest.partition("}")[2]
        return filled


def aimed(path: str) -> bool:
    """Whether a caller's request to `path` names only what the caller owns (its term)."""
    return "{" not in path.replace("{termId}", "")


@dataclass
class Refusal:
    """The 401 cases: headers sent (besides none), what the challenge must say, a raw body."""

    name: str
    headers: Callable[[Caller, Caller], dict[str, str]]
    token_sent: bool | None
    raw: bytes | None = None


UNAUTHENTICATED = [
    Refusal("no credentials", lambda me, other: {}, token_sent=False),
    Refusal("no credentials, a body that is no JSON", lambda me, other: {}, False, b"not json"),
    Refusal(
        "only the install id",
        lambda me, other: {"X-Install-ID": me.device.install_id},
        token_sent=False,
    ),
    Refusal(
        "an unknown token",
        lambda me, other: {
            **me.device.headers,
            "Authorization": "Bearer lsn_s_not-a-real-token",
        },
        token_sent=True,
    ),
    Refusal(
        "not a bearer token",
        lambda me, other: {**me.device.headers, "Authorization": "Basic dXNlcjpwYXNz"},
        token_sent=None,
    ),
    Refusal(
        "no install id",
        lambda me, other: {"Authorization": me.device.headers["Authorization"]},
        token_sent=None,
    ),
    Refusal(
        "another device's install id",
        lambda me, other: {**me.device.headers, "X-Install-ID": other.device.install_id},
        token_sent=None,
    ),
]


async def caller(client: httpx.AsyncClient) -> Caller:
    """Three calls against the user's limit: /v1/users/me, an app grant, a vocabulary term."""
    device = await ready_device(client)
    term = await created(client, device, TERM)
    return Caller(device, term["term_id"])


async def send(
    client: httpx.AsyncClient,
    method: str,
    path: str,
    who: Caller,
    headers: dict[str, str],
    raw: bytes | None = None,
) -> httpx.Response:
    """The route's well-formed request (or `raw`), as `who` would aim it, with `headers`."""
    key = (method, path)
    sent = (
        {**headers, "X-Idempotency-Key": str(uuid.uuid4())} if path == "/v1/commands" else headers
    )
    response = await client.request(
        method,
        who.path(path),
        params=QUERIES.get(key),
        json=BODIES.get(key) if raw is None else None,
        content=raw,
        headers=sent,
    )
    assert_matches_contract(response)
    return response


def limits(status: int) -> dict[str, str]:
    """Room for the three calls of `caller` and one more; one command."""
    if status == 429:
        return {"rate_limit_user": "4/minute", "rate_limit_commands": "1/minute"}
    return {}


def test_the_walk_covers_every_route_the_contract_secures_by_a_session() -> None:
    walked = {(method, path) for method, path, _ in USER_ROUTE_PURPOSES}
    secured = {
        (method.upper(), path)
        for path, item in contract()["paths"].items()
        for method, operation in item.items()
        if isinstance(operation, dict) and operation.get("security") == [{"session": []}]
    }
    assert walked == secured
    assert {(method, path) for method, path in USER_ROUTES} <= walked


@pytest.mark.parametrize(("method", "path", "status"), MATRIX)
async def test_a_refused_call_answers_its_status_stores_nothing_and_reaches_no_provider(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    method: str,
    path: str,
    status: int,
) -> None:
    if status == 429:
        await clear_of_a_minute_boundary()
    async with app_with(settings_factory, fake_openai, **limits(status)) as client:
        me, other = await caller(client), await caller(client)
        if status == 403:
            await suspend(lisan_app(client), client, me.device)
        elif status == 409:
            # As DELETE /v1/consent/user-data leaves it (status `deleted`, job in flight).
            await mark_deleted(admin_engine, me.device.user_id)
        elif status == 429:  # the user's budget spent, the other's not
            assert (await client.get("/v1/users/me", headers=me.device.headers)).status_code == 200
            spent = await command(client, me.device, command_body())
            assert spent.status_code == 200, spent.text
        stored, provider_calls = await every_stored_text(admin_engine), fake_openai.calls
        checks = Cases()
        if status == 401:
            for refusal in UNAUTHENTICATED:
                with checks.case(refusal.name):
                    headers = refusal.headers(me, other)
                    response = await send(client, method, path, me, headers, refusal.raw)
                    assert_error(response, 401)
                    assert_unauthenticated(response, token_sent=refusal.token_sent)
        else:
            with checks.case(str(status)):
                response = await send(client, method, path, me, me.device.headers)
                assert_error(response, status)
                if status in (409, 429):
                    assert assert_retry_after(response) <= 60
        with checks.case("a refused call reaches no provider"):
            assert fake_openai.calls == provider_calls
        with checks.case("a refused call stores nothing"):
            assert await every_stored_text(admin_engine) == stored
        if status == 429:
            with checks.case("another user, from the same client IP, has a budget of their own"):
                theirs = await send(client, method, path, other, other.device.headers)
                assert theirs.status_code != 429, theirs.text
                assert theirs.is_success or not aimed(path), theirs.text
        checks.check()


# -- The transitions, as an operator drives them ------------------------------------------------


async def test_active_to_suspended_keeps_sessions_and_user_routes_answer_403(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    before = await session_rows(admin_engine)
    await suspend(app, client, device)
    assert (await user_row(admin_engine, device.user_id)).status == "suspended"
    for method, path in USER_ROUTES:
        response = await call(client, method, path, device.headers)
        assert response.status_code == 403, f"{method} {path}"
        assert set(response.json()) == {"error"}
    after = await session_rows(admin_engine)
    assert [(r.id, r.revoked_at, r.expires_at) for r in after] == [
        (r.id, r.revoked_at, r.expires_at) for r in before
    ], "no session revoked, rotated or added while suspended"


async def test_suspended_to_suspended_is_idempotent_and_keeps_sessions(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    await suspend(app, client, device)
    assert (await call(client, "GET", "/v1/users/me", device.headers)).status_code == 403
    assert [r.revoked_at for r in await session_rows(admin_engine)] == [None]


async def test_suspended_to_active_the_same_token_works_again(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    # Refresh and logout while suspended are refused and change nothing.
    assert (await call(client, "POST", "/v1/auth/refresh", device.headers)).status_code == 403
    assert (await call(client, "POST", "/v1/auth/logout", device.headers)).status_code == 403
    await reinstate(app, client, device)
    me = await call(client, "GET", "/v1/users/me", device.headers)
    assert me.status_code == 200
    assert me.json()["user_id"] == str(device.user_id)
    assert (await call(client, "POST", "/v1/auth/refresh", device.headers)).status_code == 200


async def test_active_to_active_reinstate_leaves_the_session_working(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    await reinstate(app, client, device)
    assert (await call(client, "GET", "/v1/users/me", device.headers)).status_code == 200


async def test_deleted_user_routes_answer_409_and_register_too(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await set_account_status(admin_engine, device.user_id, "deleted")
    for method, path in USER_ROUTES:
        response = await call(client, method, path, device.headers)
        assert response.status_code == 409, f"{method} {path}"
        assert_retry_after(response)
    response = await client.post(
        "/v1/auth/register-device", json={"install_id": device.install_id}, headers=device.headers
    )
    assert response.status_code == 409
    assert_retry_after(response)


async def test_suspending_an_active_account_suspends_it_audited_ok(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    response = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "suspended", "userId": str(device.user_id)}
    status, suspended_at = await account(admin_engine, device.user_id)
    assert status == "suspended"
    assert suspended_at is not None
    assert (await audit_of(admin_engine, response)).outcome == "ok"


async def test_suspending_a_suspended_account_succeeds_audited_unchanged(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    first = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    _, first_suspended_at = await account(admin_engine, device.user_id)
    second = await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    for response in (first, second):
        assert_matches_contract(response)
        assert response.status_code == 200
        assert response.json() == {"status": "suspended", "userId": str(device.user_id)}
    assert (await audit_of(admin_engine, first)).outcome == "ok"
    assert (await audit_of(admin_engine, second)).outcome == "unchanged"
    assert await account(admin_engine, device.user_id) == ("suspended", first_suspended_at)


async def test_reinstating_a_suspended_account_reactivates_it_audited_ok(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    response = await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "active", "userId": str(device.user_id)}
    assert await account(admin_engine, device.user_id) == ("active", None)
    assert (await audit_of(admin_engine, response)).outcome == "ok"


async def test_reinstating_an_active_account_succeeds_audited_unchanged(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    response = await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 200
    assert response.json() == {"status": "active", "userId": str(device.user_id)}
    assert await account(admin_engine, device.user_id) == ("active", None)
    assert (await audit_of(admin_engine, response)).outcome == "unchanged"


@pytest.mark.parametrize("suffix", ["/suspend", "/reinstate"])
async def test_suspend_or_reinstate_of_a_deleted_account_is_409_with_retry_after(
    client: httpx.AsyncClient,
    operator: str,
    device: Device,
    admin_engine: AsyncEngine,
    suffix: str,
) -> None:
    await mark_deleted(admin_engine, device.user_id)
    response = await client.post(user_path(device.user_id, suffix), headers=bearer(operator))
    assert_matches_contract(response)
    assert response.status_code == 409
    assert set(response.json()) == {"error"}
    assert int(response.headers["retry-after"]) >= 1
    assert await account(admin_engine, device.user_id) == ("deleted", None)


async def test_a_suspended_account_keeps_its_session_but_user_routes_answer_403_until_reinstated(
    client: httpx.AsyncClient, operator: str, device: Device
) -> None:
    await client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
    while_suspended = await client.get("/v1/users/me", headers=device.headers)
    await client.post(user_path(device.user_id, "/reinstate"), headers=bearer(operator))
    after = await client.get("/v1/users/me", headers=device.headers)
    assert_matches_contract(while_suspended)
    assert while_suspended.status_code == 403
    assert_matches_contract(after)
    assert after.status_code == 200
    assert after.json()["user_id"] == str(device.user_id)


async def test_concurrent_suspends_change_the_account_once(
    client: httpx.AsyncClient, operator: str, device: Device, admin_engine: AsyncEngine
) -> None:
    responses = await asyncio.gather(
        *(
            client.post(user_path(device.user_id, "/suspend"), headers=bearer(operator))
            for _ in range(4)
        )
    )
    for response in responses:
        assert_matches_contract(response)
        assert response.status_code == 200
    outcomes = sorted(row.outcome for row in await audit_rows(admin_engine))
    assert outcomes == ["ok", "unchanged", "unchanged", "unchanged"]
