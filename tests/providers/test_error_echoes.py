"""A provider's error answer never puts the user's words in the log: an error that echoes what
was sent (a FastAPI 422's `input`, a message quoting the prompt, the transcript or the screen)
is logged by its structured fields only; and only a key long enough to be a secret is masked."""

from __future__ import annotations

import logging

import pytest

from lisan.core.locale import Locale
from lisan.providers.base import Expected, ProviderError, Screen
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.provider import PCM, MakeProvider

TERM = "Tsion Alemayehu"
SCREEN = '[n1] FrameLayout\n  [n4] Button "Pay Selam 5000 Birr" {clickable}'


def excerpt_of(caplog: pytest.LogCaptureFixture) -> str:
    record = next(r for r in caplog.records if r.getMessage() == "provider call failed")
    return str(record.error_excerpt)  # type: ignore[attr-defined]


async def test_a_422_that_echoes_the_prompt_logs_its_type_and_location_only(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    """FastAPI's 422 carries the request's value as `input`: the vocabulary term sent as the
    prompt never reaches the log; the error's type and location do."""
    detail = [
        {"type": "string_too_long", "loc": ["body", "prompt"], "msg": f"bad {TERM}", "input": TERM}
    ]
    fake_openai.transcriptions.then(Answer.json({"detail": detail}, 422))
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError):
        await make_provider().transcribe(PCM, Locale.EN_US, Expected([TERM], None, []))
    excerpt = excerpt_of(caplog)
    assert excerpt == "string_too_long at body.prompt"
    assert "Tsion" not in caplog.text


async def test_a_message_that_quotes_the_prompt_is_withheld(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    """An error message quoting a vocabulary term is withheld; its structured fields stay."""
    error = {"message": f"prompt '{TERM}' rejected", "type": "invalid_request_error"}
    fake_openai.transcriptions.then(Answer.json({"error": error}, 400))
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError):
        await make_provider().transcribe(PCM, Locale.EN_US, Expected([TERM], None, []))
    assert "Tsion" not in caplog.text
    assert excerpt_of(caplog).endswith("type=invalid_request_error")


@pytest.mark.parametrize("echo", ["send money to selam", '[n4] Button "Pay Selam 5000 Birr"'])
async def test_a_planner_error_that_echoes_the_transcript_or_screen_is_withheld(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    echo: str,
) -> None:
    """A planner's error quoting the transcript or a line of the screen never reaches the log."""
    fake_openai.completions.then(Answer.json({"error": {"message": f"cannot do: {echo}"}}, 400))
    screen = Screen("org.telegram.messenger", SCREEN, granted=True)
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError):
        await make_provider().plan("send money to Selam", screen, Locale.EN_US, [])
    assert "Selam" not in caplog.text
    assert "withheld" in excerpt_of(caplog)


async def test_a_short_key_masks_nothing_and_a_key_shaped_run_is_masked(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    """A dummy key like `x` (local servers) is no secret: masking it would garble every x of
    the message. A run shaped like a key (letters and digits, 32 or more) is masked whatever
    key is configured."""
    token = "abcDEF0123456789abcdef0123456789XYZ"
    message = f"box of xylophones: model not found for token {token}"
    fake_openai.transcriptions.then(Answer.json({"error": {"message": message}}, 404))
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError):
        await make_provider(openai_api_key="x").transcribe(
            PCM, Locale.EN_US, Expected([], None, [])
        )
    assert excerpt_of(caplog) == "box of xylophones: model not found for token [key]"


@pytest.mark.parametrize("call", ["transcribe", "plan"])
async def test_an_answer_past_its_bound_is_a_bad_answer_read_no_further(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    call: str,
) -> None:
    """An answer is read as it streams and stops past MAX_ANSWER_BYTES: a bad answer (502),
    logged as too large, whatever the server would have gone on sending."""
    from lisan.providers.base import ProviderBadAnswer
    from lisan.providers.openai.provider import MAX_ANSWER_BYTES

    flood = Answer(raw=b"[" + b"0," * MAX_ANSWER_BYTES + b"0]")
    endpoint = fake_openai.transcriptions if call == "transcribe" else fake_openai.completions
    endpoint.then(flood)
    provider = make_provider()
    answer = (
        provider.transcribe(PCM, Locale.EN_US, Expected([], None, []))
        if call == "transcribe"
        else provider.plan("go back", None, Locale.EN_US, [])
    )
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderBadAnswer):
        await answer
    record = next(r for r in caplog.records if r.getMessage() == "provider call failed")
    assert record.outcome == "answer too large"  # type: ignore[attr-defined]
