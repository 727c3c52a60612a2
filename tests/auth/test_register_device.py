"""POST /v1/auth/register-device: new installs, re-registration, validation, limits."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from datetime import timedelta

import httpx
import pytest
from asgi_lifespan import LifespanManager
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

import lisan.models
from lisan.admin.models import Permission
from lisan.app import LisanApp, create_app
from lisan.core.settings import Settings
from tests.fixtures.accounts import set_account_status, suspend, user_row
from tests.fixtures.admin import admin_token
from tests.fixtures.answers import assert_retry_after
from tests.fixtures.app import client_for
from tests.fixtures.clock import clear_of_a_minute_boundary
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import new_install_id, register
from tests.fixtures.sessions import auth_headers, expire_ago, session_rows

REGISTER = "/v1/auth/register-device"


async def _register(
    client: httpx.AsyncClient, body: object, headers: dict[str, str] | None = None
) -> httpx.Response:
    response = await client.post(REGISTER, json=body, headers=headers)
    assert_matches_contract(response)
    return response


async def _me(client: httpx.AsyncClient, token: str, install_id: str) -> httpx.Response:
    response = await client.get("/v1/users/me", headers=auth_headers(token, install_id))
    assert_matches_contract(response)
    return response


# -- a new install id ---------------------------------------------------------------------------


async def test_a_new_install_id_creates_an_active_account_and_a_session(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    install_id = new_install_id()
    response = await _register(client, {"install_id": install_id, "model": "Pixel 8"})
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "registered"
    assert response.headers["cache-control"] == "no-store"

    me = await _me(client, body["session_token"], install_id)
    assert me.status_code == 200
    user = await user_row(admin_engine, uuid.UUID(me.json()["user_id"]))
    assert user.install_id == install_id
    assert user.status == "active"
    assert user.locale == "am-ET"
    sessions = await session_rows(admin_engine)
    assert [(s.user_id, s.install_id, s.revoked_at) for s in sessions] == [
        (user.id, install_id, None)
    ]


@pytest.mark.parametrize("locale", ["am-ET", "en-US"])
async def test_the_locale_comes_from_the_body(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, locale: str
) -> None:
    device = await register(client, locale=locale)
    assert (await user_row(admin_engine, device.user_id)).locale == locale
    assert (await _me(client, device.token, device.install_id)).json()["locale"] == locale


async def test_the_locale_defaults_to_am_et(client: httpx.AsyncClient) -> None:
    device = await register(client)
    assert (await _me(client, device.token, device.install_id)).json()["locale"] == "am-ET"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"install_id": "a" * 16}, id="install_id-16-chars"),
        pytest.param({"install_id": "A0._:-" + "z" * 122}, id="install_id-128-chars"),
        pytest.param({"install_id": "x" * 20, "model": "m" * 128}, id="model-128-chars"),
        pytest.param({"install_id": "y" * 20, "model": "ፒክስል"}, id="model-non-ascii"),
        pytest.param({"install_id": "z" * 20, "phone_hash": "p" * 128}, id="phone_hash-128"),
    ],
)
async def test_a_body_at_the_limits_is_accepted(
    client: httpx.AsyncClient, body: dict[str, str]
) -> None:
    response = await _register(client, body)
    assert response.status_code == 200


async def test_phone_hash_is_accepted_and_never_stored(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    phone_hash = "ph-" + uuid.uuid4().hex
    response = await _register(
        client, {"install_id": new_install_id(), "phone_hash": phone_hash, "locale": "en-US"}
    )
    assert response.status_code == 200
    async with admin_engine.connect() as connection:
        for table in lisan.models.Base.metadata.sorted_tables:
            rows = (await connection.execute(select(table))).all()
            if table.name in ("users", "sessions"):
                assert rows, f"{table.name} should hold the new registration"
            for row in rows:
                for value in row:
                    text = value.decode("latin-1") if isinstance(value, bytes) else str(value)
                    assert phone_hash not in text, f"phone_hash found in {table.name}"


async def test_two_new_registrations_of_one_install_id_at_once_make_one_account(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    body = {"install_id": new_install_id()}
    responses = await asyncio.gather(*(client.post(REGISTER, json=body) for _ in range(2)))
    for response in responses:
        assert_matches_contract(response)
    assert sorted(r.status_code for r in responses) == [200, 409]
    assert len(await session_rows(admin_engine)) == 1


# -- a registered install id --------------------------------------------------------------------


async def test_re_registering_with_the_current_session_replaces_it(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    response = await _register(client, {"install_id": device.install_id}, device.headers)
    assert response.status_code == 200
    assert response.json()["status"] == "registered"
    assert response.headers["cache-control"] == "no-store"
    new_token = response.json()["session_token"]
    assert new_token != device.token

    old = await _me(client, device.token, device.install_id)
    assert old.status_code == 401
    new = await _me(client, new_token, device.install_id)
    assert new.status_code == 200
    assert new.json()["user_id"] == str(device.user_id), "the same account, a new session"
    live = [s for s in await session_rows(admin_engine) if s.revoked_at is None]
    assert len(live) == 1


async def test_re_registering_without_a_token_is_409(client: httpx.AsyncClient) -> None:
    device = await register(client)
    response = await _register(client, {"install_id": device.install_id})
    assert response.status_code == 409
    assert_retry_after(response)
    assert (await _me(client, device.token, device.install_id)).status_code == 200


async def test_re_registering_with_a_wrong_token_is_409(client: httpx.AsyncClient) -> None:
    device = await register(client)
    response = await _register(
        client, {"install_id": device.install_id}, {"Authorization": "Bearer lsn_s_nonsense"}
    )
    assert response.status_code == 409
    assert_retry_after(response)


async def test_re_registering_with_another_devices_token_is_409(
    client: httpx.AsyncClient,
) -> None:
    device = await register(client)
    other = await register(client)
    response = await _register(client, {"install_id": device.install_id}, other.headers)
    assert response.status_code == 409
    assert_retry_after(response)
    # Neither session was touched.
    assert (await _me(client, device.token, device.install_id)).status_code == 200
    assert (await _me(client, other.token, other.install_id)).status_code == 200


async def test_re_registering_with_an_expired_session_is_409(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await expire_ago(admin_engine, device.token, timedelta(seconds=5))
    response = await _register(client, {"install_id": device.install_id}, device.headers)
    assert response.status_code == 409
    assert_retry_after(response)


async def test_re_registering_with_a_revoked_session_is_409(client: httpx.AsyncClient) -> None:
    device = await register(client)
    logout = await client.post("/v1/auth/logout", headers=device.headers)
    assert logout.status_code == 204
    response = await _register(client, {"install_id": device.install_id}, device.headers)
    assert response.status_code == 409
    assert_retry_after(response)


async def test_re_registering_with_a_replaced_session_is_409(client: httpx.AsyncClient) -> None:
    device = await register(client)
    first = await _register(client, {"install_id": device.install_id}, device.headers)
    assert first.status_code == 200
    again = await _register(client, {"install_id": device.install_id}, device.headers)
    assert again.status_code == 409


async def test_re_registering_a_suspended_account_even_with_its_session_is_403(
    app: LisanApp, client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await suspend(app, client, device)
    response = await _register(client, {"install_id": device.install_id}, device.headers)
    assert response.status_code == 403
    without = await _register(client, {"install_id": device.install_id})
    assert without.status_code == 403
    assert [s.revoked_at for s in await session_rows(admin_engine)] == [None], "session kept"


async def test_re_registering_a_deleted_account_is_409(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    await set_account_status(admin_engine, device.user_id, "deleted")
    response = await _register(client, {"install_id": device.install_id}, device.headers)
    assert response.status_code == 409
    assert_retry_after(response)
    without = await _register(client, {"install_id": device.install_id})
    assert without.status_code == 409


async def test_an_admin_token_does_not_re_register_a_device(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    device = await register(client)
    token = await admin_token(app, Permission.USERS_READ, Permission.USERS_SUSPEND)
    response = await _register(
        client, {"install_id": device.install_id}, {"Authorization": f"Bearer {token}"}
    )
    assert response.status_code == 409


# -- validation ---------------------------------------------------------------------------------

VALID = "valid-install-0001"


@pytest.mark.parametrize(
    "body",
    [
        pytest.param({"install_id": "a" * 15}, id="install_id-15-chars"),
        pytest.param({"install_id": "a" * 129}, id="install_id-129-chars"),
        pytest.param({"install_id": "inst id with space"}, id="install_id-space"),
        pytest.param({"install_id": "install/id/with/slash"}, id="install_id-slash"),
        pytest.param({"install_id": "installé-id-0000001"}, id="install_id-non-ascii"),
        pytest.param({"install_id": "a" * 16 + "\n"}, id="install_id-trailing-newline"),
        pytest.param({"install_id": 1234567890123456789}, id="install_id-integer"),
        pytest.param({"install_id": None}, id="install_id-null"),
        pytest.param({"install_id": VALID, "locale": 1}, id="locale-integer"),
        pytest.param({"install_id": VALID, "locale": "fr-FR"}, id="locale-unknown"),
        pytest.param({"install_id": VALID, "locale": "am-et"}, id="locale-wrong-case"),
        pytest.param({"install_id": VALID, "locale": None}, id="locale-null"),
        pytest.param({"install_id": VALID, "model": ""}, id="model-empty"),
        pytest.param({"install_id": VALID, "model": None}, id="model-null"),
        pytest.param({"install_id": VALID, "model": "m" * 129}, id="model-129-chars"),
        pytest.param({"install_id": VALID, "model": 8}, id="model-integer"),
        pytest.param({"install_id": VALID, "phone_hash": ""}, id="phone_hash-empty"),
        pytest.param({"install_id": VALID, "phone_hash": "p" * 129}, id="phone_hash-129-chars"),
    ],
)
async def test_an_invalid_body_is_400(
    client: httpx.AsyncClient, admin_engine: AsyncEngine, body: object
) -> None:
    response = await _register(client, body)
    assert response.status_code == 400
    assert set(response.json()) == {"error"}
    assert await session_rows(admin_engine) == []


# -- rate limit per client IP -------------------------------------------------------------------


async def test_registration_is_rate_limited_per_client_ip(
    settings_factory: Callable[..., Settings],
) -> None:
    await clear_of_a_minute_boundary()
    app = create_app(settings_factory(rate_limit_register="2/minute"))
    other_ip = httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app, client=("198.51.100.9", 50000)),
        base_url="http://testserver",
    )
    async with LifespanManager(app), client_for(app) as client, other_ip:
        for _ in range(2):
            assert (await _register(client, {"install_id": new_install_id()})).status_code == 200
        limited = await _register(client, {"install_id": new_install_id()})
        assert limited.status_code == 429
        assert_retry_after(limited)
        elsewhere = await _register(other_ip, {"install_id": new_install_id()})
        assert elsewhere.status_code == 200, "another client IP has its own budget"


async def test_two_re_registrations_with_one_session_at_once_have_one_winner(
    client: httpx.AsyncClient, admin_engine: AsyncEngine
) -> None:
    device = await register(client)
    body = {"install_id": device.install_id}
    responses = await asyncio.gather(
        *(client.post(REGISTER, json=body, headers=device.headers) for _ in range(2))
    )
    for response in responses:
        assert_matches_contract(response)
    assert sorted(r.status_code for r in responses) == [200, 409]
    live = [s for s in await session_rows(admin_engine) if s.revoked_at is None]
    assert len(live) == 1


async def test_a_default_wake_word_follows_a_new_locale(client: httpx.AsyncClient) -> None:
    device = await register(client, locale="am-ET")
    again = await client.post(
        "/v1/auth/register-device",
        json={"install_id": device.install_id, "locale": "en-US"},
        headers={"Authorization": f"Bearer {device.token}"},
    )
    assert again.status_code == 200
    token = again.json()["session_token"]
    me = await client.get(
        "/v1/users/me",
        headers={"Authorization": f"Bearer {token}", "X-Install-ID": device.install_id},
    )
    assert me.json()["locale"] == "en-US"
    assert me.json()["preferences"]["wake_word"] == "Hey Lisan"
