"""The app serves exactly the committed contract (openapi.yaml, OpenAPI 3.1, version 1.1.0)."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator

import httpx
import pytest
from openapi_spec_validator import validate
from starlette.routing import BaseRoute, Route

from lisan import CONTRACT_VERSION
from lisan.app import LisanApp
from tests.fixtures.contract import assert_matches_contract, contract, contract_operations

# Contract routes whose issue has not landed yet. It must shrink to empty.
NOT_YET_SERVED: set[tuple[str, str]] = set()


def _routes(routes: list[BaseRoute], prefix: str = "") -> Iterator[tuple[str, Route]]:
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI keeps included routers nested
        if included is not None:
            yield from _routes(included.routes, prefix + route.include_context.prefix)  # type: ignore[attr-defined]
        elif isinstance(route, Route):
            yield prefix + route.path, route


def served_operations(app: LisanApp) -> set[tuple[str, str]]:
    operations = set()
    for path, route in _routes(app.fastapi.routes):
        template = re.sub(r"\{(\w+)(:\w+)?\}", r"{\1}", path)
        for method in route.methods or ():
            if method != "HEAD":
                operations.add((method, template))
    return operations


def test_the_contract_is_valid_openapi_3_1() -> None:
    document = contract()
    validate(document)
    assert document["openapi"].startswith("3.1")
    assert document["info"]["version"] == CONTRACT_VERSION == "1.1.0"


async def test_every_served_route_is_in_the_contract(app: LisanApp) -> None:
    extra = served_operations(app) - contract_operations()
    assert not extra, f"served but not in the contract: {sorted(extra)}"


async def test_every_contract_route_is_served(app: LisanApp) -> None:
    missing = contract_operations() - served_operations(app)
    assert missing == NOT_YET_SERVED, (
        f"unexpectedly missing: {sorted(missing - NOT_YET_SERVED)}; "
        f"served now, drop from NOT_YET_SERVED: {sorted(NOT_YET_SERVED - missing)}"
    )


def test_every_response_documents_x_request_id() -> None:
    for path, item in contract()["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "post", "patch", "delete"):
                continue
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    name = response["$ref"].rsplit("/", 1)[1]
                    response = contract()["components"]["responses"][name]
                assert "X-Request-ID" in response.get("headers", {}), (method, path, status)


async def test_probe_answers_match_the_contract(client: httpx.AsyncClient) -> None:
    assert_matches_contract(await client.get("/health"))
    assert_matches_contract(await client.get("/ready"))


async def test_the_checker_catches_a_response_outside_the_contract() -> None:
    request = httpx.Request("GET", "http://t/health")
    bad = httpx.Response(
        200,
        json={"status": "ok", "timestamp": "yesterday", "service": "lisan"},
        headers={"X-Request-ID": str(uuid.uuid4())},
        request=request,
    )
    with pytest.raises(AssertionError):
        assert_matches_contract(bad)
    undocumented = httpx.Response(418, json={"error": "teapot"}, request=request)
    with pytest.raises(AssertionError):
        assert_matches_contract(undocumented)
