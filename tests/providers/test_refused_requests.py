"""A server that refuses the request itself (its structured-output form, or a model it does not
serve) is a configuration error, not an outage: a 502 the phone can read, counted
`config_error`, logged with the server's words, and never counted by the breaker."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from prometheus_client import REGISTRY

from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.providers.base import ProviderRefusedRequest, ProviderUnavailable, Screen
from lisan.providers.breaker import ProviderBreaker
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import app_with, command, command_body
from tests.fixtures.devices import ready_device
from tests.fixtures.metrics import sample
from tests.fixtures.provider import MakeProvider

RECORDED = json.loads(
    (
        Path(__file__).parent / "fixtures" / "llama_cpp_python" / "json_schema_refused.json"
    ).read_text()
)
REFUSALS = {
    # llama-cpp-python 0.3.36's server, asked for `json_schema`: its own answer, recorded.
    "format-500": Answer.json(RECORDED["body"], RECORDED["status"]),
    "format-400": Answer.json(
        {
            "error": {
                "message": "Invalid parameter: 'response_format' of type 'json_schema' is "
                "not supported with this model.",
                "type": "invalid_request_error",
                "param": "response_format",
            }
        },
        400,
    ),
    "model-404": Answer.json(
        {
            "error": {
                "message": "The model `gpt-9` does not exist or you do not have access to it.",
                "type": "invalid_request_error",
                "code": "model_not_found",
            }
        },
        404,
    ),
}


def _calls(call: str, outcome: str) -> float:
    labels = {"call": call, "outcome": outcome}
    return REGISTRY.get_sample_value("lisan_provider_calls_total", labels) or 0.0


async def _plan(provider: Any) -> Any:
    return await provider.plan("open telegram", Screen("", ""), Locale.EN_US, [])


@pytest.mark.parametrize("answer", list(REFUSALS.values()), ids=list(REFUSALS))
async def test_a_refused_request_is_a_configuration_error_the_breaker_does_not_count(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, answer: Answer
) -> None:
    """Five refusals in a row leave a breaker of threshold 1 closed: the server is up."""
    plan_breaker = ProviderBreaker(None, call="plan", threshold=1, ttl_s=30)
    provider = make_provider(plan_breaker=plan_breaker)
    fake_openai.completions.default = answer
    for _ in range(5):
        with pytest.raises(ProviderRefusedRequest) as raised:
            await _plan(provider)
        assert raised.value.kind == "config_error"
    assert fake_openai.completions.calls == 5


async def test_a_5xx_that_names_no_request_field_is_still_an_outage(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    """Only an answer that says the request was refused is a configuration error."""
    fake_openai.completions.then(Answer.json({"error": {"message": "CUDA out of memory"}}, 500))
    with pytest.raises(ProviderUnavailable) as raised:
        await _plan(make_provider())
    assert raised.value.kind == "5xx"


async def test_a_refused_plan_format_answers_the_phone_502_and_counts_a_config_error(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Through the route: a 502 with an error body (never 503 and Retry-After, which would send
    the phone to retry an answer that cannot change), the call counted `config_error`, and a
    log line that names the configuration."""
    fake_openai.completions.default = REFUSALS["format-500"]
    before = _calls("plan", "config_error")
    with caplog.at_level(logging.ERROR, logger="lisan.commands.pipeline"):
        async with app_with(settings_factory, fake_openai) as client:
            device = await ready_device(client)
            response = await command(client, device, command_body())
    assert response.status_code == 502
    assert "retry-after" not in response.headers
    assert response.json() == {"error": "the voice provider refused the service's request"}
    assert _calls("plan", "config_error") == before + 1
    assert any("LISAN_OPENAI_PLAN_FORMAT" in r.getMessage() for r in caplog.records)


def _commands(status: str, reason: str) -> float:
    """Commands the model was asked to plan (the refused request is the planner's)."""
    return sample("lisan_commands_total", status=status, reason=reason, planner="model")


@pytest.mark.parametrize("answer", list(REFUSALS.values()), ids=list(REFUSALS))
async def test_a_command_whose_request_was_refused_is_counted_a_config_error(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    answer: Answer,
) -> None:
    """The command a refusal fails is counted under the same name as the call, `config_error`,
    in `lisan_commands_total` and on its access-log line: not `provider_bad_answer`, which
    names an answer the service could not read, though both are answered 502."""
    fake_openai.completions.default = answer
    refused = _commands("ERROR", "config_error")
    bad_answers = _commands("ERROR", "provider_bad_answer")
    async with app_with(settings_factory, fake_openai) as client:
        device = await ready_device(client)
        with caplog.at_level(logging.INFO, logger="lisan.access"):
            response = await command(client, device, command_body())
    assert response.status_code == 502
    assert _commands("ERROR", "config_error") == refused + 1
    assert _commands("ERROR", "provider_bad_answer") == bad_answers
    line = next(r for r in caplog.records if getattr(r, "route", None) == "/v1/commands")
    assert (line.command_status, line.command_reason) == ("ERROR", "config_error")  # type: ignore[attr-defined]
