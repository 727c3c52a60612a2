"""Provider trouble through the route: too slow is 504, failing or unreachable is 503 with
Retry-After (the provider's own when it sent one), an answer the service cannot read is 502,
and after five failures in a row the circuit opens: 503 at once, without a request. A failed
command's event records the status the client was answered (a database wait run out: 503). No error
body and no log record carries the provider's body, the API key, the transcript or the user's
vocabulary."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import httpx
import pytest
from sqlalchemy.exc import TimeoutError as PoolTimeout
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.commands import pipeline
from lisan.core.settings import Settings
from lisan.db.database_trouble import answered_status
from lisan.testing.openai_script import DEFAULT_PLAN, DEFAULT_TRANSCRIPTION, Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.answers import assert_error, assert_retry_after
from tests.fixtures.cases import Cases
from tests.fixtures.commands import app_with, command, command_body, plan, transcription
from tests.fixtures.devices import ready_device
from tests.fixtures.logs import log_text
from tests.fixtures.provider import API_KEY
from tests.fixtures.rows import command_events, command_rows

SLOW_S = 3.0  # far past the 0.3 s timeouts these tests set; the fake cuts it short at its stop


async def one_command(
    settings_factory: Callable[..., Settings], fake: FakeOpenAI, **settings: object
) -> httpx.Response:
    async with app_with(settings_factory, fake.base_url, **settings) as client:
        device = await ready_device(client)
        return await command(client, device, command_body())


async def test_a_transcription_past_its_timeout_is_504(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.then(Answer.json(DEFAULT_TRANSCRIPTION, delay_s=SLOW_S))
    started = time.monotonic()
    response = await one_command(settings_factory, fake_openai, transcribe_timeout_s=0.3)
    assert_error(response, 504)
    assert time.monotonic() - started < SLOW_S
    assert fake_openai.completions.calls == 0


async def test_a_plan_past_its_timeout_is_504(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(Answer.plan(DEFAULT_PLAN, delay_s=SLOW_S))
    started = time.monotonic()
    response = await one_command(settings_factory, fake_openai, plan_timeout_s=0.3)
    assert_error(response, 504)
    assert time.monotonic() - started < SLOW_S
    assert fake_openai.transcriptions.calls == fake_openai.completions.calls == 1


UNAVAILABLE: dict[str, tuple[str, Answer, int]] = {
    f"{endpoint} {status}": (endpoint, Answer.error(status), 5)  # 5: the provider sent none
    for endpoint in ("transcriptions", "completions")
    for status in (500, 502, 503)
}
UNAVAILABLE |= {
    f"{endpoint} 429 with Retry-After 7": (
        endpoint,
        Answer.error(429, headers={"Retry-After": "7"}),
        7,
    )
    for endpoint in ("transcriptions", "completions")
}
UNAVAILABLE |= {
    f"{endpoint} dropped": (endpoint, Answer.dropped(), 5)
    for endpoint in ("transcriptions", "completions")
}


async def test_a_failing_provider_is_503_with_retry_after_and_the_next_command_runs(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Each failure is followed by a command that succeeds (which also keeps the circuit
    closed: the failures are never five in a row)."""
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, (endpoint, fault, seconds) in UNAVAILABLE.items():
            getattr(fake_openai, endpoint).then(fault)
            with cases.case(name):
                failed = await command(client, device, command_body())
                assert_error(failed, 503)
                assert assert_retry_after(failed) == seconds
                recovered = await command(client, device, command_body())
                assert recovered.status_code == 200, recovered.text
    cases.check()


async def test_a_provider_that_is_not_listening_is_503(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(settings_factory, "http://127.0.0.1:9") as client:  # discard port
        device = await ready_device(client)
        response = await command(client, device, command_body())
    assert_error(response, 503)
    assert_retry_after(response)


UNREADABLE = {
    "transcription not JSON": ("transcriptions", Answer.malformed()),
    "transcription without text": ("transcriptions", Answer.json({"transcript": "x"})),
    "transcription text not a string": ("transcriptions", Answer.json({"text": 7})),
    "logprob not a number": (
        "transcriptions",
        Answer.json({"text": "open", "logprobs": [{"logprob": "high"}]}),
    ),
    "completion not JSON": ("completions", Answer.malformed()),
    "completion without choices": ("completions", Answer.json({"id": "x", "choices": []})),
    "plan content not JSON": ("completions", Answer.content("open telegram, please")),
    "plan content not a string": ("completions", Answer.content({"steps": []})),
    "provider 400": ("completions", Answer.error(400)),
    "provider 401": ("transcriptions", Answer.error(401)),
}


async def test_an_answer_the_service_cannot_read_is_502(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, (endpoint, answer) in UNREADABLE.items():
            getattr(fake_openai, endpoint).then(answer)
            with cases.case(name):
                assert_error(await command(client, device, command_body()), 502)
    cases.check()


async def test_after_five_failures_the_circuit_opens_and_no_request_is_made(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.transcriptions.default = Answer.error(500)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        failing = [await command(client, device, command_body()) for _ in range(5)]
        assert fake_openai.transcriptions.calls == 5
        started = time.monotonic()
        blocked = await command(client, device, command_body())
        elapsed = time.monotonic() - started
    assert [r.status_code for r in failing] == [503] * 5
    assert_error(blocked, 503)
    assert 1 <= assert_retry_after(blocked) <= 30
    assert fake_openai.transcriptions.calls == 5, "an open circuit sends no request"
    assert elapsed < 1.0


async def test_an_answer_in_a_bad_shape_does_not_open_the_circuit(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """A provider that answers is up, even when its answer is unreadable."""
    fake_openai.transcriptions.then(*[Answer.malformed()] * 6)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        unreadable = [await command(client, device, command_body()) for _ in range(6)]
        after = await command(client, device, command_body())
    assert [r.status_code for r in unreadable] == [502] * 6
    assert after.status_code == 200, after.text
    assert fake_openai.transcriptions.calls == 7


async def test_a_failed_command_is_recorded_as_an_error_without_a_bill(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    fake_openai.completions.then(Answer.error(500))
    response = await one_command(settings_factory, fake_openai)
    assert_error(response, 503)
    (event,) = await command_events(admin_engine)
    assert str(event.id) == response.headers["x-request-id"]
    assert event.status == "ERROR_503"
    assert {"transcription", "total"} <= set(event.server_timings)
    rows = await command_rows(admin_engine)
    assert (rows["billed_commands"], rows["idempotency_records"]) == (0, 0)


async def test_a_command_whose_database_wait_runs_out_is_recorded_as_the_503_it_answered(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under load a command waited past the pool's bound where it records its answer: the client
    got 503 (the database handler's answer) and its event said ERROR_500."""

    async def pool_exhausted(*_args: object) -> None:
        raise PoolTimeout("QueuePool limit of size 5 overflow 0 reached")

    monkeypatch.setattr(pipeline, "confirm", pool_exhausted)
    response = await one_command(settings_factory, fake_openai)
    assert_error(response, 503)
    (event,) = await command_events(admin_engine)
    assert event.status == "ERROR_503"
    rows = await command_rows(admin_engine)
    assert (rows["billed_commands"], rows["idempotency_records"]) == (0, 0)


def test_a_failed_command_is_recorded_with_the_status_it_was_answered() -> None:
    """A client gone before the answer got none: its event says 499, not a server error."""
    assert answered_status(asyncio.CancelledError()) == 499
    assert answered_status(PoolTimeout("pool")) == 503
    assert answered_status(RuntimeError("bug")) == 500


# --- nothing secret in an error body or a log record ----------------------------------------

SECRET_TRANSCRIPT = "what is the quokka password"  # asks the planner: the rules do not plan it
VOCABULARY = ("Tiruworkterm", "Zemzemhotel")
PROVIDER_DETAIL = "provider-internal-detail-xyzzy"
# An error answer's message: logged as a bounded excerpt for the operator, never in
# an answer to the phone; the rest of the error answer (here our key) never anywhere. None of
# its words is the screen's or the transcript's: a planner's error quoting one withholds it.
ERROR_MESSAGE = "provider-error-excerpt-plugh"


def _detailed(status: int, **headers: str) -> Answer:
    return Answer.json(
        {"error": {"message": ERROR_MESSAGE, "key": API_KEY}}, status, headers=headers
    )


FAULTS = {
    "transcription 500": ("transcriptions", _detailed(500)),
    "transcription 401": ("transcriptions", _detailed(401)),
    "transcription slow": ("transcriptions", Answer.json(DEFAULT_TRANSCRIPTION, delay_s=SLOW_S)),
    "transcription dropped": ("transcriptions", Answer.dropped()),
    "transcription not JSON": ("transcriptions", Answer(raw=PROVIDER_DETAIL.encode())),
    "plan 500": ("completions", _detailed(500)),
    "plan 429": ("completions", _detailed(429, **{"Retry-After": "3"})),
    "plan slow": ("completions", Answer.plan(DEFAULT_PLAN, delay_s=SLOW_S)),
    "plan not JSON": ("completions", Answer.content(PROVIDER_DETAIL)),
    "plan rejected": (
        "completions",
        Answer.plan(plan(speech_response_text=SECRET_TRANSCRIPT, package="com.x.y")),
    ),
}


async def test_no_secret_in_an_error_body_or_any_log_record(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    fake_openai.transcriptions.default = Answer.json(transcription(SECRET_TRANSCRIPT, -0.1))
    cases = Cases()
    async with app_with(
        settings_factory, fake_openai.base_url, transcribe_timeout_s=0.3, plan_timeout_s=0.3
    ) as client:
        device = await ready_device(client)
        for term in VOCABULARY:
            added = await client.post(
                "/v1/vocabulary", json={"term": term, "kind": "custom"}, headers=device.headers
            )
            assert added.status_code == 201, added.text
        for name, (endpoint, fault) in FAULTS.items():
            getattr(fake_openai, endpoint).then(fault)
            with cases.case(name):
                response = await command(client, device, command_body())
                assert response.status_code in {200, 502, 503, 504}, response.text
                assert_no_secret(response.text)
                assert ERROR_MESSAGE not in response.text
    cases.check()
    assert fake_openai.transcriptions.last.field("prompt") == ", ".join(VOCABULARY)
    assert {r.name for r in caplog.records} >= {"lisan.providers.openai", "lisan.access"}
    assert_no_secret(log_text(caplog.records))
    excerpts = [getattr(r, "error_excerpt", None) for r in caplog.records]
    assert excerpts.count(ERROR_MESSAGE) == 4  # the 500s, the 401 and the 429
    elsewhere = [r for r in caplog.records if getattr(r, "error_excerpt", None) != ERROR_MESSAGE]
    assert ERROR_MESSAGE not in log_text(elsewhere)


def assert_no_secret(text: str) -> None:
    for secret in (API_KEY, PROVIDER_DETAIL, SECRET_TRANSCRIPT, "quokka", *VOCABULARY):
        assert secret not in text, f"{secret!r} is in it"
