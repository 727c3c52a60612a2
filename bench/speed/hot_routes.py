"""The hot routes the speed benches load (`bench.routes`, `bench.builds`): each route, the
service's data and device behind them, the check that a route answers before it is loaded, and
the core the servers run on."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from bench.floors.floor_routes import PACKAGES

INSTALL_ID = "bench-install-0000000001"
SERVER_CORE = "0"  # the servers'; wrk and this bench run on the other cores
EVENT = b'{"outcome":"done","duration_ms":1240,"confidence":0.91,"stage_timings":{"transcribe":310,"plan":295,"validate":2}}'  # noqa: E501


@dataclass(frozen=True)
class Route:
    name: str
    path: str
    body: bytes | None = None  # a POST's JSON body


ROUTES = [
    Route("users-me", "/v1/users/me"),
    Route("vocabulary", "/v1/vocabulary"),
    Route("app-grants", "/v1/app-grants"),
    Route("entitlement", "/v1/billing/entitlement"),
    Route("telemetry", "/v1/telemetry/events", EVENT),
]


def fill_service(url: str) -> dict[str, str]:
    """Register the bench's device and give it the floor's data; returns its headers."""
    with httpx.Client(base_url=url, timeout=30) as client:
        token = client.post("/v1/auth/register-device", json={"install_id": INSTALL_ID}).json()[
            "session_token"
        ]
        headers = {"Authorization": f"Bearer {token}", "X-Install-ID": INSTALL_ID}
        for number in range(50):
            kind = "contact" if number % 2 else "app"
            term = {"term": f"term {number:02d}", "kind": kind}
            client.post("/v1/vocabulary", json=term, headers=headers).raise_for_status()
        for number, package in enumerate(PACKAGES):
            decisions = [True, False, True] if number % 2 else [True]
            for granted in decisions:
                grant = {"package_name": package, "granted": granted}
                client.post("/v1/app-grants", json=grant, headers=headers).raise_for_status()
    return headers


def check(url: str, headers: dict[str, str], body: bytes | None) -> None:
    """The route answers as the bench expects before it is loaded."""
    if body is None:
        answer = httpx.get(url, headers=headers)
    else:
        answer = httpx.post(
            url, content=body, headers=headers | {"content-type": "application/json"}
        )
    if answer.status_code not in (200, 202):
        raise SystemExit(f"{url} answered {answer.status_code}: {answer.text[:200]}")
