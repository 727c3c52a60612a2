"""Request bodies: an endpoint names the model its body is parsed by (`JsonBody[Model]`), the
app's strict parse is the only reader of a body, and FastAPI parses none itself (its errors and
its schema are not the contract's)."""

from __future__ import annotations

import uuid
from typing import Annotated, get_args, get_origin, get_type_hints

import httpx
from fastapi.dependencies.models import Dependant
from fastapi.params import Depends
from fastapi.routing import APIRoute
from pydantic import BaseModel

from lisan.app import ROUTERS
from lisan.deps import json_body
from tests.fixtures.contract import METHODS, contract
from tests.fixtures.devices import register


def _routes() -> list[APIRoute]:
    return [route for router in ROUTERS for route in router.routes if isinstance(route, APIRoute)]


def _body_models(route: APIRoute) -> list[type[BaseModel]]:
    """The models named `JsonBody[Model]` in the endpoint's signature."""
    models = []
    for hint in get_type_hints(route.endpoint, include_extras=True).values():
        if get_origin(hint) is not Annotated:
            continue
        model, *metadata = get_args(hint)
        for marker in metadata:
            if isinstance(marker, Depends) and marker.dependency is json_body(model):
                models.append(model)
    return models


def _body_params(dependant: Dependant) -> list[object]:
    """The parameters FastAPI would read from the body, in the endpoint and its dependencies."""
    found: list[object] = list(dependant.body_params)
    for sub in dependant.dependencies:
        found += _body_params(sub)
    return found


def test_fastapi_parses_no_body_itself() -> None:
    for route in _routes():
        assert _body_params(route.dependant) == [], route.path
        assert route.body_field is None, route.path


def test_an_operation_names_a_body_model_exactly_where_the_contract_has_a_body() -> None:
    named = {
        (method, route.path): _body_models(route)
        for route in _routes()
        for method in route.methods or ()
    }
    documented = {
        (method.upper(), path)
        for path, item in contract()["paths"].items()
        for method in METHODS
        if "requestBody" in item.get(method, {})
    }
    assert {operation for operation, models in named.items() if models} == documented
    assert all(len(models) <= 1 for models in named.values())


# A body is parsed after the checks on the caller and the path: whatever is wrong with it, a
# caller without credentials is a 401 and an unknown term a 404, and a command's idempotency
# key is checked before its body.


async def test_a_caller_without_credentials_is_a_401_whatever_the_body(
    client: httpx.AsyncClient,
) -> None:
    response = await client.post("/v1/vocabulary", content=b"{not json")
    assert response.status_code == 401


async def test_an_unknown_term_is_a_404_whatever_the_body(client: httpx.AsyncClient) -> None:
    device = await register(client)
    response = await client.patch(
        "/v1/vocabulary/not-a-uuid", content=b"{not json", headers=device.headers
    )
    assert response.status_code == 404


async def test_a_command_key_is_checked_before_its_body(client: httpx.AsyncClient) -> None:
    device = await register(client)
    response = await client.post("/v1/commands", content=b"{not json", headers=device.headers)
    assert response.status_code == 400
    assert response.json() == {"error": "X-Idempotency-Key: must be a UUID"}
    keyed = {**device.headers, "X-Idempotency-Key": str(uuid.uuid4())}
    response = await client.post("/v1/commands", content=b"{not json", headers=keyed)
    assert response.json() == {"error": "body is not valid JSON"}
