"""Fixtures of the admin tests: a registered device and an operator holding both permissions."""

from __future__ import annotations

import httpx
import pytest

from lisan.admin.models import Permission
from lisan.app import LisanApp
from tests.factories import Device, admin_token, register

OPERATOR = "operator"


@pytest.fixture
async def device(client: httpx.AsyncClient) -> Device:
    return await register(client)


@pytest.fixture
async def operator(app: LisanApp) -> str:
    """The token of an admin credential named OPERATOR with users.read and users.suspend."""
    return await admin_token(app, Permission.USERS_READ, Permission.USERS_SUSPEND, name=OPERATOR)
