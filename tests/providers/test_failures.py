from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from lisan.core.locale import Locale
from lisan.providers.base import (
    Expected,
    ProviderBadAnswer,
    ProviderError,
    ProviderTimeout,
    ProviderUnavailable,
    Screen,
)
from lisan.providers.openai import OpenAIProvider
from lisan.providers.openai.errors import ERROR_EXCERPT_CHARS
from lisan.testing.openai_script import Answer, Endpoint, chat_completion
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.network import closed_port
from tests.fixtures.provider import API_KEY, PCM, MakeProvider

Call = Callable[[OpenAIProvider], Awaitable[Any]]


async def _transcribe(provider: OpenAIProvider) -> Any:
    return await provider.transcribe(PCM, Locale.EN_US, Expected(["Zemzem"], None, []))


async def _plan(provider: OpenAIProvider) -> Any:
    return await provider.plan("open telegram", Screen("", '[n1] Button "OK"'), Locale.EN_US, [])


def _endpoint(fake: FakeOpenAI, call: Call) -> Endpoint[Any]:
    return fake.transcriptions if call is _transcribe else fake.completions


both_calls = pytest.mark.parametrize("call", [_transcribe, _plan], ids=["transcribe", "plan"])


@both_calls
async def test_past_the_timeout_is_provider_timeout(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, call: Call
) -> None:
    provider = make_provider(transcribe_timeout_s=0.2, plan_timeout_s=0.2)
    fake_openai.delay_s = 1.0
    started = time.perf_counter()
    with pytest.raises(ProviderTimeout):
        await call(provider)
    assert time.perf_counter() - started < 0.6


async def test_each_call_has_its_own_timeout(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    provider = make_provider(transcribe_timeout_s=0.2, plan_timeout_s=2)
    fake_openai.delay_s = 0.4
    with pytest.raises(ProviderTimeout):
        await _transcribe(provider)
    assert await _plan(provider) is not None


@both_calls
@pytest.mark.parametrize("status", [500, 502, 503])
async def test_provider_5xx_is_unavailable(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, call: Call, status: int
) -> None:
    _endpoint(fake_openai, call).then(Answer.error(status))
    with pytest.raises(ProviderUnavailable) as raised:
        await call(make_provider())
    assert raised.value.retry_after_s == 5


@both_calls
async def test_rate_limited_honours_retry_after(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, call: Call
) -> None:
    _endpoint(fake_openai, call).then(Answer.error(429, headers={"Retry-After": "7"}))
    with pytest.raises(ProviderUnavailable) as raised:
        await call(make_provider())
    assert raised.value.retry_after_s == 7


@pytest.mark.parametrize(
    ("retry_after", "seconds"),
    [(None, 5), ("0", 1), ("2.5", 3), ("999999", 3600), ("soon", 5), ("-3", 1)],
)
async def test_retry_after_is_bounded(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, retry_after: str | None, seconds: int
) -> None:
    headers = {"Retry-After": retry_after} if retry_after is not None else {}
    fake_openai.transcriptions.then(Answer.error(429, headers=headers))
    with pytest.raises(ProviderUnavailable) as raised:
        await _transcribe(make_provider())
    assert raised.value.retry_after_s == seconds


@both_calls
@pytest.mark.parametrize("status", [400, 401, 404, 422])
async def test_other_4xx_is_a_bad_answer(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, call: Call, status: int
) -> None:
    _endpoint(fake_openai, call).then(Answer.error(status))
    with pytest.raises(ProviderBadAnswer):
        await call(make_provider())


@both_calls
async def test_connection_refused_is_unavailable(make_provider: MakeProvider, call: Call) -> None:
    provider = make_provider(openai_base_url=f"http://127.0.0.1:{closed_port()}/v1")
    with pytest.raises(ProviderUnavailable):
        await call(provider)


@both_calls
async def test_dropped_connection_is_unavailable(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, call: Call
) -> None:
    _endpoint(fake_openai, call).then(Answer.dropped())
    with pytest.raises(ProviderUnavailable):
        await call(make_provider())


@both_calls
async def test_an_answer_that_is_not_json_is_a_bad_answer(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, call: Call
) -> None:
    _endpoint(fake_openai, call).then(Answer.malformed())
    with pytest.raises(ProviderBadAnswer):
        await call(make_provider())


@pytest.mark.parametrize(
    "answer",
    [
        [{"text": "open telegram"}],
        "open telegram",
        {},
        {"text": None},
        {"text": 12},
        {"transcript": "open telegram"},
        {"text": "go back", "logprobs": {"token": "go", "logprob": -0.1}},
        {"text": "go back", "logprobs": [{"token": "go"}]},
        {"text": "go back", "logprobs": [{"token": "go", "logprob": "-0.1"}]},
        {"text": "go back", "logprobs": [{"token": "go", "logprob": True}]},
        {"text": "go back", "logprobs": [-0.1]},
    ],
)
async def test_transcription_without_a_text_string_is_a_bad_answer(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, answer: Any
) -> None:
    fake_openai.transcriptions.then(Answer.json(answer))
    with pytest.raises(ProviderBadAnswer):
        await _transcribe(make_provider())


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"choices": []},
        {"choices": None},
        {"choices": [{}]},
        {"choices": [{"message": None}]},
        {"choices": [{"message": {"role": "assistant"}}]},
        {"choices": [{"message": {"content": None, "refusal": "no"}}]},
        chat_completion({"package_name": "x"}),
        chat_completion("this is not JSON"),
        chat_completion('{"package_name": '),
        [1, 2],
    ],
)
async def test_completion_without_json_content_is_a_bad_answer(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, answer: Any
) -> None:
    fake_openai.completions.then(Answer.json(answer))
    with pytest.raises(ProviderBadAnswer):
        await _plan(make_provider())


@pytest.mark.parametrize(
    "answer",
    [
        Answer.error(503),
        Answer.error(429),
        Answer.error(401),
        Answer.malformed(),
        Answer.json({"text": 1}),
        Answer.dropped(),
    ],
)
async def test_error_messages_hold_no_provider_or_user_data(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, answer: Answer
) -> None:
    fake_openai.transcriptions.then(answer)
    with pytest.raises(ProviderError) as raised:
        await _transcribe(make_provider())
    message = str(raised.value)
    assert message.startswith("transcribe: ")
    for secret in ("fake provider error", "not JSON <html>", "Zemzem", "sk-test", "127.0.0.1"):
        assert secret not in message
    assert raised.value.__cause__ is None


# What a broken peer sends before closing the connection.
BROKEN_PEERS = {
    "not HTTP": b"SSH-2.0-OpenSSH_9.6\r\n",
    "cut mid-answer": b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    b'Content-Length: 400\r\n\r\n{"text": "open',
}


@pytest.mark.parametrize("sent", BROKEN_PEERS.values(), ids=BROKEN_PEERS.keys())
async def test_a_peer_that_breaks_the_protocol_is_unavailable(
    make_provider: MakeProvider, sent: bytes
) -> None:
    """Whatever the connection does short of an HTTP answer, the call ends as the provider
    being unavailable, never as a crash or a wait for the timeout."""

    async def broken(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1024)
        writer.write(sent)
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(broken, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        provider = make_provider(openai_base_url=f"http://127.0.0.1:{port}/v1")
        started = time.perf_counter()
        with pytest.raises(ProviderUnavailable):
            await _transcribe(provider)
        assert time.perf_counter() - started < 2.0
    finally:
        server.close()
        await server.wait_closed()


ERROR_ANSWERS = {
    "unknown-model": (
        Answer.json({"error": {"message": "Model whisper-x is not installed"}}, 400),
        "Model whisper-x is not installed",
    ),
    "key-echoed": (
        Answer.json({"error": {"message": f"Incorrect API key provided: {API_KEY}."}}, 401),
        "Incorrect API key provided: [key].",
    ),
    "detail": (Answer.json({"detail": "Server overloaded,\n\ttry later"}, 503), None),
    # faster-whisper-server 0.0.3 (its api.py): OpenAI's error inside FastAPI's detail.
    "nested-detail": (
        Answer.json(
            {
                "detail": {
                    "error": {
                        "message": "Unknown model 'gpt-4o-transcribe'",
                        "type": "invalid_request_error",
                    }
                }
            },
            400,
        ),
        "Unknown model 'gpt-4o-transcribe'",
    ),
    "html": (Answer.malformed(502), "<html>this is not JSON"),
}


@pytest.mark.parametrize(("answer", "excerpt"), list(ERROR_ANSWERS.values()), ids=ERROR_ANSWERS)
async def test_an_error_answer_is_logged_with_its_status_and_a_bounded_excerpt(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    answer: Answer,
    excerpt: str | None,
) -> None:
    """An operator tells a misconfiguration ("unknown model", a bad key) from an outage; the
    key itself never reaches the log, even when the provider echoes it."""
    fake_openai.transcriptions.then(answer)
    with (
        caplog.at_level(logging.WARNING, logger="lisan.providers.openai"),
        pytest.raises(ProviderError),
    ):
        await _transcribe(make_provider())
    failed = [r for r in caplog.records if r.getMessage() == "provider call failed"]
    assert len(failed) == 1
    record = failed[0]
    assert record.status == answer.status  # type: ignore[attr-defined]
    logged: str = record.error_excerpt  # type: ignore[attr-defined]
    assert logged == (excerpt or "Server overloaded, try later")
    assert "sk-test" not in logged


@pytest.mark.parametrize(
    ("message", "length"), [("xxxx " * 1000, ERROR_EXCERPT_CHARS), ("x" * 5000, 1)]
)
async def test_an_error_excerpt_is_bounded_and_a_word_its_cut_splits_is_dropped(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    message: str,
    length: int,
) -> None:
    """The excerpt is cut to ERROR_EXCERPT_CHARS, marked "…". The message is cut before it is
    read at all, and a word that cut splits is dropped whole: the part of a key or an escape
    left before the cut is no longer recognisable as one, and never reaches the log."""
    fake_openai.transcriptions.then(Answer.json({"error": {"message": message}}, 400))
    with (
        caplog.at_level(logging.WARNING, logger="lisan.providers.openai"),
        pytest.raises(ProviderBadAnswer),
    ):
        await _transcribe(make_provider())
    record = next(r for r in caplog.records if r.getMessage() == "provider call failed")
    assert len(record.error_excerpt) == length  # type: ignore[attr-defined]
    assert record.error_excerpt.endswith("…")  # type: ignore[attr-defined]
