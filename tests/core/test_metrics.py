"""Prometheus metrics (lisan.core.metrics): what a request, a command and a provider failure
count, and that no label ever takes a value from a request."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from enum import StrEnum

import httpx
import pytest
from prometheus_client import REGISTRY, Counter, Gauge, Histogram
from starlette.routing import Route

from lisan.app import LisanApp
from lisan.commands.hearing import Doubt
from lisan.commands.pipeline import Gated
from lisan.commands.schemas import CommandStatus
from lisan.commands.service import FAILED, Failure
from lisan.commands.stages import METRIC_STAGES
from lisan.core import metrics
from lisan.core.settings import Settings
from lisan.plans.safe import Refusal
from lisan.providers.base import Decline
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import app_with, command, command_body
from tests.fixtures.devices import ready_device
from tests.fixtures.metrics import sample

# Routes that tests/server/test_edge.py adds to its own app (the same process serves them).
TEST_ROUTES = {
    "/test/boom",
    "/test/echo",
    "/test/query",
    "/test/locked",
    "/test/no-connection",
    "/test/refused",
    "/test/conflict",
    "/test/record",
}


def route_templates(app: LisanApp) -> set[str]:
    served = {route.path for route in app.services.served_routes if isinstance(route, Route)}
    return served | {metrics.UNMATCHED_ROUTE}


async def test_a_request_is_counted_by_its_route_template_never_its_path(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    task_id = str(uuid.uuid4())
    template = "/v1/vocabulary/{termId}"
    assert template in route_templates(app)
    before = sample("lisan_http_requests_total", route=template, method="DELETE", status="401")
    response = await client.delete(f"/v1/vocabulary/{task_id}")
    assert response.status_code == 401
    after = sample("lisan_http_requests_total", route=template, method="DELETE", status="401")
    assert after == before + 1
    assert sample("lisan_http_request_duration_seconds_count", route=template, method="DELETE")


async def test_no_label_takes_a_value_a_client_chose(
    app: LisanApp, client: httpx.AsyncClient
) -> None:
    """Hostile methods, paths and ids, then every label of every Lisan metric so far (this
    process has served every test before this one) holds to the declared sets."""
    await client.request("BREW", "/v1/users/me")
    await client.get("/v1/users/me/../../etc/passwd")
    await client.get(f"/v1/{uuid.uuid4()}")
    await client.post("/v1/telemetry/events", content=b"{")
    await client.get("/v1/consent/user-data/jobs/%2F..%2F")
    allowed = {**metrics.LABEL_VALUES, "route": frozenset(route_templates(app) | TEST_ROUTES)}
    checked = 0
    for family in REGISTRY.collect():
        if not family.name.startswith("lisan_"):
            continue
        for found in family.samples:
            for label, value in found.labels.items():
                if label == "le":  # a histogram's bucket bound: ours
                    continue
                assert label in allowed, f"{family.name}: label {label} has no declared set"
                assert value in allowed[label], f"{family.name}{{{label}={value!r}}}"
                checked += 1
    assert checked > 0
    assert sample("lisan_http_requests_total", route="/v1/users/me", method="other", status="405")


def test_every_label_of_every_metric_has_its_values_declared_once_the_app_is_built() -> None:
    """Whoever names a label's values declares them at import: with the app's modules imported,
    no label is left without a set (a route's are the app's templates)."""
    declared = set(metrics.LABEL_VALUES) | {"route"}
    labelled = [
        metric
        for metric in vars(metrics).values()
        if isinstance(metric, Counter | Gauge | Histogram)
    ]
    assert labelled
    for metric in labelled:
        names = set(metric._labelnames)
        assert names <= declared, f"{metric._name}: {sorted(names - declared)}"
        assert all(metrics.LABEL_VALUES[name] for name in names - {"route"}), metric._name


def test_values_outside_a_set_become_other() -> None:
    labels = {"status": "other", "reason": "other", "planner": "other"}
    before = sample("lisan_commands_total", **labels)
    metrics.count_command("<script>", "free text from a planner", "a planner's own name")
    assert sample("lisan_commands_total", **labels) == before + 1


# Every owner of a reason a command is answered with, by the enum that names them.
REASON_OWNERS: dict[str, type[StrEnum]] = {
    "the gate": Gated,
    "the transcriber's doubts": Doubt,
    "the planner's declines": Decline,
    "the plan rules' refusals": Refusal,
    "a failed command": Failure,
}


def test_the_reason_label_takes_exactly_the_reasons_their_owners_name() -> None:
    """Each owner declares its reasons (a StrEnum, whose values are the wire's
    `reprompt_reason`); the label takes those, `none` (an answer without one) and `other`."""
    named = {reason.value for owner in REASON_OWNERS.values() for reason in owner}
    assert metrics.COMMAND_REASONS.values == named | {metrics.NO_REASON, metrics.OTHER}
    assert metrics.COMMAND_REASONS.values <= metrics.LABEL_VALUES["reason"]


def test_a_command_is_counted_under_its_answer_s_status_or_as_failed() -> None:
    assert metrics.COMMAND_STATUSES.values == {*CommandStatus, FAILED}
    assert metrics.COMMAND_STATUSES.values <= metrics.LABEL_VALUES["status"]


async def test_a_command_counts_its_status_stages_and_provider_calls(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    counted = {"status": "ACCEPTED", "reason": "none", "planner": "model"}
    accepted = sample("lisan_commands_total", **counted)
    calls = sample("lisan_provider_calls_total", call="transcribe", outcome="ok")
    stages = {
        stage: sample("lisan_command_stage_duration_seconds_count", stage=stage)
        for stage in METRIC_STAGES
    }
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        with caplog.at_level(logging.INFO, logger="lisan.access"):
            response = await command(client, device, command_body())
    assert response.json()["status"] == "ACCEPTED"
    assert sample("lisan_commands_total", **counted) == accepted + 1
    assert sample("lisan_provider_calls_total", call="transcribe", outcome="ok") == calls + 1
    for stage in METRIC_STAGES:
        count = sample("lisan_command_stage_duration_seconds_count", stage=stage)
        assert count == stages[stage] + 1, stage
    line = next(r for r in caplog.records if getattr(r, "route", None) == "/v1/commands")
    assert (line.command_status, line.command_reason, line.status) == ("ACCEPTED", None, 200)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("answer", "outcome", "reason"),
    [
        (Answer.error(500), "5xx", "unavailable"),
        (Answer.error(429), "429", "unavailable"),
        (Answer.error(400), "4xx", "provider_bad_answer"),
        (Answer.malformed(), "malformed", "provider_bad_answer"),
    ],
    ids=["5xx", "429", "4xx", "malformed"],
)
async def test_a_provider_failure_is_counted_by_its_kind(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    answer: Answer,
    outcome: str,
    reason: str,
) -> None:
    failed = sample("lisan_provider_calls_total", call="transcribe", outcome=outcome)
    counted = {"status": "ERROR", "reason": reason, "planner": "none"}  # failed before planning
    errors = sample("lisan_commands_total", **counted)
    fake_openai.transcriptions.then(answer)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        with caplog.at_level(logging.INFO, logger="lisan.access"):
            response = await command(client, device, command_body())
    assert response.status_code in (502, 503)
    assert sample("lisan_provider_calls_total", call="transcribe", outcome=outcome) == failed + 1
    assert sample("lisan_commands_total", **counted) == errors + 1
    line = next(r for r in caplog.records if getattr(r, "route", None) == "/v1/commands")
    assert (line.command_status, line.command_reason) == ("ERROR", reason)  # type: ignore[attr-defined]


def commands_counted() -> float:
    return sum(
        found.value
        for family in REGISTRY.collect()
        if family.name == "lisan_commands"
        for found in family.samples
        if found.name == "lisan_commands_total"
    )


async def test_a_refusal_before_the_command_runs_is_no_command(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A key reused with another body (422) or a replay ran no command: neither the metrics
    nor the access line count one (a 409 of its own there once read as "account_deleted")."""
    key = uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        first = await command(client, device, command_body(), key)
        counted = commands_counted()
        with caplog.at_level(logging.INFO, logger="lisan.access"):
            replay = await command(client, device, command_body(), key)
            reused = await command(client, device, command_body(package="org.other.app"), key)
    assert (first.status_code, replay.status_code, reused.status_code) == (200, 200, 422)
    assert commands_counted() == counted
    lines = [r for r in caplog.records if getattr(r, "route", None) == "/v1/commands"]
    assert len(lines) == 2
    assert not any(hasattr(line, "command_status") for line in lines)
