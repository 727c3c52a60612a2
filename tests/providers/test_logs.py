from __future__ import annotations

import logging
import traceback

import pytest

from lisan.core.locale import Locale
from lisan.providers.base import Expected, ProviderError, Screen
from lisan.testing.openai_script import Answer, chat_completion
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.provider import API_KEY, PCM, MakeProvider

TRANSCRIPT = "Kebede transcript words"
VOCABULARY = ["Zemzemhotel", "Tiruneshterm"]
TREE = '[n1] FrameLayout\n  [n2] TextView "Screenlabelsecret" {clickable}'
PROVIDER_BODY = "providerbodysecret"  # in answers of 200: never logged
# A 4xx/5xx answer's error message is logged as a bounded excerpt: an operator must
# tell "unknown model" from an outage.
ERROR_MESSAGE = "providererrormessage"


def _record_text(record: logging.LogRecord) -> str:
    parts = [record.getMessage(), repr(record.__dict__)]
    if record.exc_info and record.exc_info[1] is not None:
        parts.append("".join(traceback.format_exception(record.exc_info[1])))
    return "\n".join(parts)


async def test_logs_carry_no_key_audio_transcript_vocabulary_or_screen(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    provider = make_provider(plan_timeout_s=0.2)
    fake_openai.transcriptions.then(
        Answer.json({"text": TRANSCRIPT, "logprobs": [{"token": "K", "logprob": -0.2}]}),
        Answer.json({"error": ERROR_MESSAGE}, 500),
        Answer.json({"error": {"message": f"{ERROR_MESSAGE} for key {API_KEY}"}}, 401),
        Answer(raw=PROVIDER_BODY.encode()),
    )
    fake_openai.completions.then(
        Answer.json(chat_completion('{"speech_response_text": "Kebede transcript words"}')),
        Answer.json({"error": ERROR_MESSAGE}, 429, headers={"Retry-After": "2"}),
        Answer.json(chat_completion(PROVIDER_BODY)),
        Answer.json({}, delay_s=1.0),
    )
    assert (
        await provider.transcribe(PCM, Locale.EN_US, Expected(VOCABULARY, None, []))
    ).text == TRANSCRIPT
    await provider.plan(TRANSCRIPT, Screen("org.telegram.messenger", TREE), Locale.EN_US, [])
    for _ in range(3):
        with pytest.raises(ProviderError):
            await provider.transcribe(PCM, Locale.EN_US, Expected(VOCABULARY, None, []))
        with pytest.raises(ProviderError):
            await provider.plan(
                TRANSCRIPT, Screen("org.telegram.messenger", TREE), Locale.EN_US, []
            )

    assert fake_openai.calls == 8
    ours = [r for r in caplog.records if r.name == "lisan.providers.openai"]
    assert {getattr(r, "status", None) for r in ours} >= {200, 500, 401, 429}
    assert any(getattr(r, "outcome", None) == "timeout" for r in ours)
    logged = "\n".join(_record_text(record) for record in caplog.records)
    for secret in (API_KEY, TRANSCRIPT, "Kebede", *VOCABULARY, "Screenlabelsecret", PROVIDER_BODY):
        assert secret not in logged
    assert repr(PCM[:16])[2:-1] not in logged
    excerpts = [getattr(r, "error_excerpt", None) for r in ours]
    assert excerpts.count(ERROR_MESSAGE) == 2  # the 500 and the 429
    assert f"{ERROR_MESSAGE} for key [key]" in excerpts  # the 401, its echo of our key masked
