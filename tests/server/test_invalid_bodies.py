"""A body the service cannot read is refused the same way on every route that takes one.

Whatever the route, a body that is not JSON, not a JSON object, or an empty object is a 400, an
unknown field is a 400 where the contract closes the body, and a body over 16 KB is a 413; the
answer is `{"error"}` alone and as the contract documents it, it never echoes a term the body
held, and nothing is stored. The parser reads the bytes, never the Content-Type header, so every
row is sent as `application/json`, as a phone sends it.

A rule only one route has (a package name's form, a term's length, a command's audio and its 1 MB
limit) is tested with that route.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.app import LisanApp
from tests.fixtures.consent import GRANTS, consent_rows
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import Device, register
from tests.fixtures.grants import APP_GRANTS, grant_rows
from tests.fixtures.sessions import session_rows
from tests.fixtures.vocabulary import VOCABULARY, created, stored_terms, term_path

# Distinctive, so an answer that echoes the term is caught.
SECRET = "Qorqoro"


async def _a_term(client: httpx.AsyncClient, device: Device) -> str:
    """The path of a term that exists, so an update has something to leave untouched."""
    record = await created(client, device, "Abebe", "contact")
    return term_path(record["term_id"])


@dataclass(frozen=True)
class Route:
    """A route that takes a body: a valid body for it, and what it stores."""

    name: str
    method: str
    path: str
    valid: dict[str, Any]
    stored: Callable[[LisanApp, AsyncEngine, Device | None], Awaitable[object]]
    signed_in: bool = True
    closed: bool = False
    secret: str | None = None
    # For a route on one record: makes that record, returns the route's path to it.
    record: Callable[[httpx.AsyncClient, Device], Awaitable[str]] | None = None


async def _sessions(app: LisanApp, engine: AsyncEngine, device: Device | None) -> object:
    return await session_rows(engine)


async def _grants(app: LisanApp, engine: AsyncEngine, device: Device | None) -> object:
    return await grant_rows(engine)


async def _consents(app: LisanApp, engine: AsyncEngine, device: Device | None) -> object:
    return await consent_rows(engine)


async def _terms(app: LisanApp, engine: AsyncEngine, device: Device | None) -> object:
    assert device is not None
    return await stored_terms(engine, device.user_id)


async def _events(app: LisanApp, engine: AsyncEngine, device: Device | None) -> object:
    return app.services.telemetry.stats.accepted


ROUTES = [
    Route(
        "a device registration",
        "POST",
        "/v1/auth/register-device",
        {"install_id": "valid-install-0001"},
        _sessions,
        signed_in=False,
    ),
    Route(
        "an app grant",
        "POST",
        APP_GRANTS,
        {"package_name": "com.example.app", "granted": True},
        _grants,
    ),
    Route(
        "a consent grant",
        "POST",
        GRANTS,
        {"scope": "audio_retention", "granted": True},
        _consents,
        closed=True,
    ),
    Route(
        "a new vocabulary term",
        "POST",
        VOCABULARY,
        {"term": SECRET, "kind": "custom"},
        _terms,
        closed=True,
        secret=SECRET,
    ),
    Route(
        "a vocabulary term update",
        "PATCH",
        term_path("{term_id}"),
        {"term": SECRET},
        _terms,
        closed=True,
        secret=SECRET,
        record=_a_term,
    ),
    Route(
        "a telemetry event",
        "POST",
        "/v1/telemetry/events",
        {"outcome": "done", "duration_ms": 10, "stage_timings": {}},
        _events,
        closed=True,
    ),
]


def _first_text(body: dict[str, Any]) -> str:
    return next(value for value in body.values() if isinstance(value, str))


def _with(**extra: Any) -> Callable[[Route], bytes]:
    return lambda route: json.dumps({**route.valid, **extra}).encode()


@dataclass(frozen=True)
class Body:
    """A way to send a body that is refused: what the row's id says, the bytes, the status."""

    name: str
    content: Callable[[Route], bytes]
    status: int = 400
    closed_only: bool = False


BODIES = [
    Body("sent empty", lambda route: b""),
    Body("sent as words", lambda route: b"not json"),
    Body("sent as a broken object", lambda route: b"{not json"),
    Body("sent as a lone brace", lambda route: b"{"),
    Body("sent cut short", lambda route: json.dumps(route.valid).encode()[:-1]),
    Body("sent form-encoded", lambda route: b"install_id=abcdefghijklmnop"),
    Body("sent in bytes that are not UTF-8", lambda route: b"\xff\xfe"),
    Body("sent as a JSON array", lambda route: json.dumps([route.valid]).encode()),
    Body("sent as JSON null", lambda route: b"null"),
    Body("sent as a JSON string", lambda route: json.dumps(_first_text(route.valid)).encode()),
    Body("sent as an empty object", lambda route: b"{}"),
    Body("with an unknown field", _with(extra=1), closed_only=True),
    Body("with an unknown note", _with(note="x"), closed_only=True),
    Body("with an unknown field holding an object", _with(capabilities={"a": 1}), closed_only=True),
    Body("padded past 16 KB", _with(padding="x" * 20 * 1024), status=413),
]

ROWS = [
    pytest.param(route, body, id=f"{route.name} {body.name} is refused {body.status}")
    for route in ROUTES
    for body in BODIES
    if route.closed or not body.closed_only
]


@pytest.mark.parametrize(("route", "body"), ROWS)
async def test_a_body_the_route_cannot_take_is_refused_and_stores_nothing(
    app: LisanApp,
    client: httpx.AsyncClient,
    admin_engine: AsyncEngine,
    route: Route,
    body: Body,
) -> None:
    device = await register(client) if route.signed_in else None
    headers = {"Content-Type": "application/json"}
    path = route.path
    if device is not None:
        headers |= device.headers
        if route.record is not None:
            path = await route.record(client, device)
    before = await route.stored(app, admin_engine, device)
    response = await client.request(
        route.method, path, content=body.content(route), headers=headers
    )
    assert_matches_contract(response)
    assert response.status_code == body.status, response.text
    assert set(response.json()) == {"error"}
    if route.secret is not None:
        assert route.secret.casefold() not in response.text.casefold(), "the term was echoed"
    assert await route.stored(app, admin_engine, device) == before, "something was stored"
