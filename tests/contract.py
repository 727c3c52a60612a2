"""The committed contract (openapi.yaml), and a check that a response keeps to it."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import yaml
from jsonschema import Draft202012Validator, FormatChecker

CONTRACT_PATH = Path(__file__).resolve().parents[1] / "openapi.yaml"
METHODS = ("get", "post", "put", "patch", "delete")


@cache
def contract() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(CONTRACT_PATH.read_text(encoding="utf-8"))
    return loaded


def contract_operations() -> set[tuple[str, str]]:
    return {
        (method.upper(), path)
        for path, item in contract()["paths"].items()
        for method in METHODS
        if method in item
    }


def _resolve(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        target: Any = contract()
        for part in node["$ref"].removeprefix("#/").split("/"):
            target = target[part]
        node = target
    return node


def _template_for(method: str, path: str) -> tuple[str, dict[str, Any]]:
    for template, item in contract()["paths"].items():
        pattern = "^" + re.sub(r"\{[^/]+\}", "[^/]+", template) + "$"
        if re.match(pattern, path) and method.lower() in item:
            return template, item[method.lower()]
    raise AssertionError(f"{method} {path} is not in the contract")


def schema_validator(schema: dict[str, Any]) -> Draft202012Validator:
    """A validator for a schema of the contract, its $refs resolved against the whole document."""
    rooted = {**schema, "components": contract()["components"]}
    return Draft202012Validator(rooted, format_checker=FormatChecker())


def assert_matches_contract(response: httpx.Response) -> None:
    """The response's status, headers and body are what the contract documents for its route."""
    request = response.request
    template, operation = _template_for(request.method, request.url.path)
    status = str(response.status_code)
    documented = operation["responses"]
    assert status in documented, (
        f"{request.method} {template} answered {status}; the contract lists {sorted(documented)}"
    )
    spec = _resolve(documented[status])
    for name, header in spec.get("headers", {}).items():
        header = _resolve(header)
        if header.get("required"):
            assert name.lower() in response.headers, f"{status} lacks header {name}"
    content = spec.get("content")
    if not content:
        assert response.content == b"", f"{status} must have no body"
        return
    schema = content["application/json"]["schema"]
    errors = sorted(schema_validator(schema).iter_errors(response.json()), key=str)
    assert not errors, f"{request.method} {template} {status}: {errors[0].message}"
