"""Property: for one install id, only its live session token authenticates.

One device is registered and refreshed once (so it also has a revoked, previous token); then
arbitrary printable tokens and mutations of the live token are all 401 on GET /v1/users/me,
while the live token keeps answering 200.
"""

from __future__ import annotations

import string
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass

import httpx
import pytest
from asgi_lifespan import LifespanManager
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lisan.app import create_app
from lisan.core import tokens
from lisan.core.settings import Settings
from tests.fixtures.answers import assert_unauthenticated
from tests.fixtures.app import client_for
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import register
from tests.fixtures.sessions import auth_headers, forge, token_body

# Printable ASCII without CR/LF: always a valid header value.
HEADER_TEXT = st.text(
    alphabet=st.sampled_from(string.ascii_letters + string.digits + string.punctuation + " "),
    max_size=120,
)
TOKEN_CHARS = string.ascii_letters + string.digits + "-_"


@dataclass(frozen=True)
class Subject:
    client: httpx.AsyncClient
    install_id: str
    live: str
    previous: str  # revoked by the refresh that issued `live`


@pytest.fixture
async def subject(settings_factory: Callable[..., Settings]) -> AsyncIterator[Subject]:
    # A generous per-user limit: the live token is checked once per example.
    app = create_app(
        settings_factory(rate_limit_user="100000/minute", rate_limit_ip="100000/minute")
    )
    async with LifespanManager(app), client_for(app) as client:
        device = await register(client)
        refreshed = await client.post("/v1/auth/refresh", headers=device.headers)
        assert refreshed.status_code == 200
        yield Subject(client, device.install_id, refreshed.json()["session_token"], device.token)


@st.composite
def candidate_tokens(draw: st.DrawFn, live: str, previous: str) -> str:
    kind = draw(
        st.sampled_from(
            [
                "arbitrary",
                "one-changed",
                "one-changed-well-formed",
                "truncated",
                "extended",
                "other-prefix",
                "previous",
            ]
        )
    )
    if kind == "arbitrary":
        return draw(HEADER_TEXT)
    if kind == "one-changed":
        index = draw(st.integers(0, len(live) - 1))
        char = draw(st.sampled_from(TOKEN_CHARS).filter(lambda c: c != live[index]))
        return live[:index] + char + live[index + 1 :]
    if kind == "one-changed-well-formed":
        # Passes the shape and checksum checks: only the hash look-up can refuse it.
        body = token_body(live)
        index = draw(st.integers(0, len(body) - 1))
        char = draw(st.sampled_from(TOKEN_CHARS).filter(lambda c: c != body[index]))
        return forge(tokens.SESSION_PREFIX, body[:index] + char + body[index + 1 :])
    if kind == "truncated":
        return live[: draw(st.integers(0, len(live) - 1))]
    if kind == "extended":
        separator = draw(st.sampled_from(["", " ", ",", ";"]))
        return live + separator + draw(st.text(alphabet=TOKEN_CHARS, min_size=1, max_size=8))
    if kind == "other-prefix":
        prefix = draw(st.sampled_from(["lsn_a_", "lsn_x_", "LSN_S_", "lsn-s-", ""]))
        if draw(st.booleans()):
            return forge(prefix, token_body(live))
        return prefix + live[len(tokens.SESSION_PREFIX) :]
    return previous


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
async def test_only_the_live_token_authenticates_its_install_id(
    subject: Subject, data: st.DataObject
) -> None:
    token = data.draw(candidate_tokens(subject.live, subject.previous), label="token")
    response = await subject.client.get(
        "/v1/users/me", headers=auth_headers(token, subject.install_id)
    )
    assert_unauthenticated(response, token_sent=None)

    live = await subject.client.get(
        "/v1/users/me", headers=auth_headers(subject.live, subject.install_id)
    )
    assert_matches_contract(live)
    assert live.status_code == 200
