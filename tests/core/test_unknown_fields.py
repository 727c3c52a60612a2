"""Unknown fields, through the routes: strict about types, open or closed as the contract says.

Only the bodies the contract marks "no extra properties" (consent grant, vocabulary create and
update, telemetry event) refuse a field they do not know; device registration, app grant and
command request (its screen context included) ignore it, so an older service accepts a newer
phone during a staged roll-out (design.md). openapi.yaml says the same. That a closed body
refuses an unknown field is a row of the table of refused bodies
(tests/server/test_invalid_bodies.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
from pydantic import BaseModel

from lisan.auth.schemas import DeviceRegistration
from lisan.commands.schemas import CommandRequest, ScreenContext
from lisan.consent.schemas import ConsentGrantRequest
from lisan.core.schemas import StrictModel, TolerantModel
from lisan.core.settings import Settings
from lisan.grants.schemas import AppGrantRequest
from lisan.telemetry.schemas import TelemetryEvent
from lisan.testing.openai_server import FakeOpenAI
from lisan.vocabulary.schemas import TermCreate, TermUpdate
from tests.fixtures.commands import app_with, command, command_body
from tests.fixtures.contract import assert_matches_contract, contract
from tests.fixtures.devices import TELEGRAM, new_install_id, ready_device, register

# What a newer phone might send: a plain field, and one holding an object of its own.
NEWER: dict[str, Any] = {
    "client_version": "2.0.1",
    "capabilities": {"haptics": True, "levels": [1, 2]},
}

CLOSED: dict[str, type[BaseModel]] = {
    "ConsentGrantRequest": ConsentGrantRequest,
    "VocabularyTermCreate": TermCreate,
    "VocabularyTermUpdate": TermUpdate,
    "TelemetryEvent": TelemetryEvent,
}
OPEN: dict[str, type[BaseModel]] = {
    "DeviceRegistration": DeviceRegistration,
    "AppGrantRequest": AppGrantRequest,
    "CommandRequest": CommandRequest,
    "ScreenContext": ScreenContext,
}


def test_the_models_and_the_contract_agree_on_which_bodies_are_closed() -> None:
    schemas = contract()["components"]["schemas"]
    for name, model in CLOSED.items():
        assert issubclass(model, StrictModel), name
        assert schemas[name].get("additionalProperties") is False, name
    for name, model in OPEN.items():
        assert issubclass(model, TolerantModel), name
        assert schemas[name].get("additionalProperties", True) is not False, name


# Open bodies: an unknown field is ignored.


async def test_a_registration_with_unknown_fields_registers(client: httpx.AsyncClient) -> None:
    body = {"install_id": new_install_id(), "locale": "en-US", **NEWER}
    response = await client.post("/v1/auth/register-device", json=body)
    assert_matches_contract(response)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "registered"


async def test_an_app_grant_with_unknown_fields_is_recorded(client: httpx.AsyncClient) -> None:
    device = await register(client)
    body = {"package_name": TELEGRAM, "granted": True, **NEWER}
    response = await client.post("/v1/app-grants", json=body, headers=device.headers)
    assert_matches_contract(response)
    assert response.status_code == 200, response.text
    listed = await client.get("/v1/app-grants", headers=device.headers)
    assert [(g["package_name"], g["granted"]) for g in listed.json()["grants"]] == [
        (TELEGRAM, True)
    ]


async def test_a_command_with_unknown_fields_is_planned(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        body = command_body(**NEWER)
        body["screen_context"] |= {"focused_node": "n3", "window": {"insets": [0, 24]}}
        response = await command(client, device, body)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "ACCEPTED"


async def test_unknown_fields_do_not_loosen_the_types_of_known_ones(
    client: httpx.AsyncClient,
) -> None:
    body = {"install_id": new_install_id(), "locale": 1, **NEWER}
    response = await client.post("/v1/auth/register-device", json=body)
    assert response.status_code == 400
    assert response.json()["error"].startswith("locale")
