"""Builders for the tests: registered devices and admin credentials, made as clients make them."""

from __future__ import annotations

import secrets
import uuid
from dataclasses import dataclass

import httpx

from lisan.admin import service as admin_service
from lisan.admin.models import Permission
from lisan.app import LisanApp
from lisan.core.database import unit_of_work


def new_install_id() -> str:
    return "inst-" + secrets.token_hex(12)


@dataclass
class Device:
    install_id: str
    token: str
    user_id: uuid.UUID

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "X-Install-ID": self.install_id}


async def register(
    client: httpx.AsyncClient, install_id: str | None = None, locale: str | None = None
) -> Device:
    """A new device through POST /v1/auth/register-device, with its user id from /v1/users/me."""
    install_id = install_id or new_install_id()
    body: dict[str, str] = {"install_id": install_id}
    if locale is not None:
        body["locale"] = locale
    response = await client.post("/v1/auth/register-device", json=body)
    assert response.status_code == 200, response.text
    token = response.json()["session_token"]
    me = await client.get(
        "/v1/users/me", headers={"Authorization": f"Bearer {token}", "X-Install-ID": install_id}
    )
    assert me.status_code == 200, me.text
    return Device(install_id, token, uuid.UUID(me.json()["user_id"]))


async def admin_token(app: LisanApp, *permissions: Permission, name: str | None = None) -> str:
    """A live admin credential, created as `lisan admin create-token` creates one."""
    async with unit_of_work(app.services.resources.sessions) as session:
        return await admin_service.create_credential(
            session, name or f"admin-{secrets.token_hex(4)}", list(permissions)
        )


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
