"""A provider's error answer never puts the user's words in the log. Every word of the error
(its message and its structured fields alike: `type`, `code`, `param`, a FastAPI `loc`) that is
the user's is replaced by a marker: one that equals or contains a word of a vocabulary term,
of any length, however the server escaped it (`\\uXXXX`, percent-encoding, HTML entities),
and, in a planner's error, one that equals any single word of the transcript or the screen.
The rest of the error stays, so an operator still tells "unknown model" from an outage; and
only a key long enough to be a secret is masked."""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import quote

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


def logged(caplog: pytest.LogCaptureFixture) -> str:
    """Everything the log records carry: their messages and every field."""
    return "\n".join(f"{r.getMessage()} {r.__dict__!r}" for r in caplog.records)


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
    assert "Tsion" not in logged(caplog)


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


# --- every word of the user's, however it is spelled back ---------------------------------------

ABEBE = "አበበ"  # a three-letter Ge'ez name
SPELLINGS = {
    "as sent": ABEBE,
    "JSON escapes": "\\u12a0\\u1260\\u1260",
    "JSON escapes in capitals": "\\u12A0\\u1260\\u1260",
    "percent-encoded": quote(ABEBE),
    "HTML hexadecimal entities": "&#x12A0;&#x1260;&#x1260;",
    "HTML decimal entities": "&#4768;&#4704;&#4704;",
    "percent-encoded entities": quote("&#x12A0;&#x1260;&#x1260;"),
    "UTF-8 bytes escaped": "".join(f"\\x{b:02x}" for b in ABEBE.encode()),
    "with a case suffix": ABEBE + "ን",
    "in a homophone spelling": "ዐበበ",
}


async def transcribe_against(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, error: dict[str, Any], term: str
) -> None:
    fake_openai.transcriptions.then(Answer.json(error, 400))
    with pytest.raises(ProviderError):
        await make_provider().transcribe(PCM, Locale.AM_ET, Expected([term], None, []))


@pytest.mark.parametrize("spelling", SPELLINGS.values(), ids=SPELLINGS)
async def test_a_vocabulary_term_of_three_letters_is_withheld_however_it_is_spelled_back(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    spelling: str,
) -> None:
    """A name of any length, spelled back as it was sent or escaped (decoded before it is
    read), or with a suffix, is withheld; the rest of the message is logged."""
    error = {"error": {"message": f"prompt word {spelling} is not allowed", "type": "bad_prompt"}}
    with caplog.at_level(logging.WARNING):
        await transcribe_against(make_provider, fake_openai, error, ABEBE)
    assert excerpt_of(caplog) == "prompt word [withheld] is not allowed type=bad_prompt"
    assert spelling not in logged(caplog)
    assert ABEBE not in logged(caplog)


@pytest.mark.parametrize(
    ("term", "spelling"),
    [("ዳዊ", "ዳዊ"), ("ዳዊ", "ዳዊን"), ("Zoë", "Zo&euml;"), ("Zoë", "ZO&Euml;"), ("Zoë", "ZOË")],
    ids=["two letters", "two letters with a suffix", "a named entity", "in capitals",
         "in capitals unescaped"],
)  # fmt: skip
async def test_a_term_is_withheld_in_any_case_and_inside_a_longer_word(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    term: str,
    spelling: str,
) -> None:
    error = {"error": {"message": f"unknown word: '{spelling}'"}}
    with caplog.at_level(logging.WARNING):
        await transcribe_against(make_provider, fake_openai, error, term)
    assert excerpt_of(caplog) == "unknown word: '[withheld]'"


@pytest.mark.parametrize(
    ("error", "excerpt"),
    [
        ({"error": {"message": "bad request", "param": f"prompt.{ABEBE}"}},
         "bad request param=prompt.[withheld]"),
        ({"error": {"message": "bad request", "code": f"no such word {quote(ABEBE)}"}},
         "bad request code=no such word [withheld]"),
        ({"error": {"message": "bad request", "type": "&#x12A0;&#x1260;&#x1260;"}},
         "bad request type=[withheld]"),
        ({"detail": [{"type": "value_error", "loc": ["body", "prompt", ABEBE], "input": ABEBE}]},
         "value_error at body.prompt.[withheld]"),
        ({"detail": [{"type": f"bad_{ABEBE}", "loc": ["body", {"word": ABEBE}]}]},
         "[withheld] at body.?"),
        ({"error": {"message": "bad request", "param": {"word": ABEBE}, "code": [ABEBE]}},
         "bad request"),
    ],
    ids=["param", "code", "type", "loc", "a nested location", "nested fields"],
)  # fmt: skip
async def test_a_term_is_withheld_from_the_structured_fields_too(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    error: dict[str, Any],
    excerpt: str,
) -> None:
    """The fields are logged by the same reading as the message; a field that is neither a
    string nor a number (a nested object) is never logged."""
    with caplog.at_level(logging.WARNING):
        await transcribe_against(make_provider, fake_openai, error, ABEBE)
    assert excerpt_of(caplog) == excerpt
    assert ABEBE not in logged(caplog)


@pytest.mark.parametrize(
    ("error", "excerpt"),
    [
        ({"error": {"message": "no contact named 'Selam'"}}, "no contact named '[withheld]'"),
        ({"error": {"message": "currency Birr unsupported"}}, "currency [withheld] unsupported"),
        ({"error": {"message": "bad request", "param": "MONEY"}}, "bad request param=[withheld]"),
        ({"error": {"message": "bad value %42irr"}}, "bad value [withheld]"),
    ],
    ids=["a transcript word", "a screen word", "a field in capitals", "escaped"],
)
async def test_a_planner_error_quoting_one_word_of_the_transcript_or_screen_withholds_it(
    make_provider: MakeProvider,
    fake_openai: FakeOpenAI,
    caplog: pytest.LogCaptureFixture,
    error: dict[str, Any],
    excerpt: str,
) -> None:
    """One word is enough: a planner's error that quotes a single word of the transcript or of
    the screen withholds that word, whatever its case or escape; its other words stay."""
    fake_openai.completions.then(Answer.json(error, 400))
    screen = Screen("org.telegram.messenger", SCREEN, granted=True)
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError):
        await make_provider().plan("send money to Selam", screen, Locale.EN_US, [])
    assert excerpt_of(caplog) == excerpt
