"""POST /v1/commands refuses a bad request before anything runs: 400 (413 for a body over 1 MB,
401 without the install id), `{"error"}` only, no provider call, no row written.

The audio rules (decode_pcm): strict base64 (the standard alphabet, padding only at the end),
an even number of bytes, 0.4 s to 15 s of 16 kHz mono 16-bit PCM, and a `duration_ms` within
50 ms or 2% of the real length, whichever is larger.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.commands.endpoints import COMMAND_BODY_LIMIT
from lisan.core.settings import Settings
from lisan.testing.openai_server import FakeOpenAI
from lisan.testing.speech import b64, duration_ms, silence
from tests.fixtures.answers import assert_error
from tests.fixtures.cases import Cases
from tests.fixtures.commands import (
    COMMANDS,
    app_with,
    command,
    command_body,
    post,
    raw_body,
    speech_pcm,
)
from tests.fixtures.contract import assert_matches_contract
from tests.fixtures.devices import ready_device
from tests.fixtures.rows import NO_COMMAND_ROWS, command_rows

Json = Any
Edit = Callable[[dict[str, Json]], object]


def _speech(seconds: float) -> bytes:
    return speech_pcm(seconds=seconds)


def _with_audio(seconds: float, duration: int | None = None) -> Edit:
    """The body's audio replaced by `seconds` of speech, announced as `duration` ms (its real
    length when None)."""

    def edit(body: dict[str, Json]) -> None:
        pcm = _speech(seconds)
        body["audio_base64"] = b64(pcm)
        body["duration_ms"] = duration_ms(pcm) if duration is None else duration

    return edit


def _audio_text(change: Callable[[str], str]) -> Edit:
    def edit(body: dict[str, Json]) -> None:
        before = body["audio_base64"]
        body["audio_base64"] = change(before)
        assert body["audio_base64"] != before  # the case really changes something

    return edit


def _url_safe(text: str) -> str:
    assert "+" in text
    assert "/" in text
    return text.replace("+", "-").replace("/", "_")


def _screen(**fields: Json) -> Edit:
    return lambda body: body["screen_context"].update(fields)


def _drop_screen(name: str) -> Edit:
    return lambda body: body["screen_context"].pop(name)


def _odd_length(body: dict[str, Json]) -> None:
    body["audio_base64"] = b64(_speech(2.0) + b"\0")  # 64,001 bytes: not 16-bit samples


# The default body: 2.0 s of real speech (64,000 bytes, so its base64 ends in "=="), en-US.
BAD_BODIES: dict[str, Edit] = {
    "no audio_base64": lambda body: body.pop("audio_base64"),
    "no duration_ms": lambda body: body.pop("duration_ms"),
    "no screen_context": lambda body: body.pop("screen_context"),
    "no current_package": _drop_screen("current_package"),
    "no view_tree_summary": _drop_screen("view_tree_summary"),
    "duration_ms as a string": lambda body: body.update(duration_ms="2000"),
    "duration_ms as a fraction": lambda body: body.update(duration_ms=2000.5),
    "duration_ms as a boolean": lambda body: body.update(duration_ms=True),
    "language as a number": lambda body: body.update(language=1),
    "language not a contract locale": lambda body: body.update(language="fr-FR"),
    "language in another case": lambda body: body.update(language="en-us"),
    "language an explicit null": lambda body: body.update(language=None),
    "audio_base64 null": lambda body: body.update(audio_base64=None),
    "audio_base64 a number": lambda body: body.update(audio_base64=12),
    "screen_context a string": lambda body: body.update(screen_context="[n1] FrameLayout"),
    "current_package null": _screen(current_package=None),
    "view_tree_summary a list": _screen(view_tree_summary=["[n1] FrameLayout"]),
    "base64 with a space": _audio_text(lambda text: text[:100] + " " + text[100:]),
    "base64 with MIME line breaks": _audio_text(
        lambda text: "\n".join(text[i : i + 76] for i in range(0, len(text), 76))
    ),
    "base64 with = inside": _audio_text(lambda text: text[:8] + "=" + text[9:]),
    "base64 with = doubled at the end": _audio_text(lambda text: text + "=="),
    "base64 in the url-safe alphabet": _audio_text(_url_safe),
    "base64 without its padding": _audio_text(lambda text: text.rstrip("=")),
    "audio of an odd byte length": _odd_length,
    "duration_ms 51 ms long": _with_audio(2.0, 2051),
    "duration_ms 51 ms short": _with_audio(2.0, 1949),
    "duration_ms 2.5% long of 10 s": _with_audio(10.0, 10_250),
    "duration_ms 2.5% short of 10 s": _with_audio(10.0, 9_750),
    "duration_ms 399": _with_audio(0.4, 399),
    "duration_ms 15001": _with_audio(15.0, 15_001),
    "0.39 s of audio": _with_audio(0.39, 400),
    "15.04 s of audio": _with_audio(15.04, 15_000),
    "no audio at all": lambda body: body.update(audio_base64="", duration_ms=400),
    "view_tree_summary of 65,537 characters": _screen(view_tree_summary="x" * 65_537),
    "current_package of 256 characters": _screen(current_package="a" * 256),
}

ACCEPTED_BODIES: dict[str, Edit] = {
    "duration_ms 50 ms long": _with_audio(2.0, 2050),
    "duration_ms 50 ms short": _with_audio(2.0, 1950),
    "duration_ms 1.9% long of 10 s": _with_audio(10.0, 10_190),
    "duration_ms 1.9% short of 10 s": _with_audio(10.0, 9_810),
    "0.4 s of audio": _with_audio(0.4, 400),
    "15 s of audio": _with_audio(15.0, 15_000),
    "view_tree_summary of 65,536 characters": _screen(view_tree_summary="x" * 65_536),
    "current_package of 255 characters": _screen(current_package="a" * 255),
    "an empty current_package": _screen(current_package=""),
    "no language": lambda body: body.pop("language"),
}


NOT_JSON_OBJECTS: dict[str, bytes] = {
    "an empty body": b"",
    "truncated JSON": b"{",
    "a JSON array": b"[]",
    "JSON null": b"null",
    "a JSON string": b'"audio"',
    "not UTF-8": b"\xff\xfe{}",
    "a trailing comma": b'{"audio_base64": "AAAA",}',
}

BAD_KEYS: dict[str, str | None] = {
    "missing": None,
    "empty": "",
    "words": "not-a-uuid",
    "digits": "1234",
    "one short": str(uuid.uuid4())[:-1],
    "one long": str(uuid.uuid4()) + "0",
    "not ASCII": "\N{KEY}",
}


async def _assert_nothing_ran(fake: FakeOpenAI, admin_engine: AsyncEngine) -> None:
    assert fake.calls == 0, "the provider was called"
    assert await command_rows(admin_engine) == NO_COMMAND_ROWS, "rows were written"


async def _what_ran(fake: FakeOpenAI, admin_engine: AsyncEngine) -> tuple[int, dict[str, int]]:
    """Provider calls and command rows so far: a refused request changes neither."""
    return fake.calls, await command_rows(admin_engine)


async def test_a_bad_body_is_400_and_nothing_runs(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, edit in BAD_BODIES.items():
            body = command_body()
            edit(body)
            before = await _what_ran(fake_openai, admin_engine)
            with cases.case(name):
                assert_error(await command(client, device, body), 400)
                assert await _what_ran(fake_openai, admin_engine) == before, "something ran"
        for name, raw in NOT_JSON_OBJECTS.items():
            before = await _what_ran(fake_openai, admin_engine)
            with cases.case(name):
                assert_error(await post(client, device.headers, raw), 400)
                assert await _what_ran(fake_openai, admin_engine) == before, "something ran"
    cases.check()
    await _assert_nothing_ran(fake_openai, admin_engine)


async def test_a_body_at_the_limits_is_accepted(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, edit in ACCEPTED_BODIES.items():
            body = command_body()
            edit(body)
            calls = fake_openai.transcriptions.calls
            with cases.case(name):
                response = await command(client, device, body)
                assert response.status_code == 200, response.text
                assert fake_openai.transcriptions.calls == calls + 1
    cases.check()


async def test_a_body_without_language_is_heard_as_amharic(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    body = command_body(language=None)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response = await command(client, device, body)
    assert response.status_code == 200, response.text
    assert fake_openai.transcriptions.last.field("language") == "am"
    assert "Language: Amharic (am-ET)" in fake_openai.completions.last.messages[1]["content"]


async def test_an_idempotency_key_that_is_not_a_uuid_is_400(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    cases = Cases()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        for name, key in BAD_KEYS.items():
            headers = {**device.headers, "Content-Type": "application/json"}
            if key is not None:
                headers["X-Idempotency-Key"] = key
            with cases.case(name):
                response = await client.post(
                    COMMANDS, content=raw_body(command_body()), headers=_as_bytes(headers)
                )
                assert_matches_contract(response)
                assert "X-Idempotency-Key" in assert_error(response, 400)
    cases.check()
    await _assert_nothing_ran(fake_openai, admin_engine)


def _as_bytes(headers: dict[str, str]) -> list[tuple[bytes, bytes]]:
    """Headers as bytes, so a non-ASCII value can be sent at all."""
    return [(name.encode(), value.encode("utf-8")) for name, value in headers.items()]


async def test_only_the_hyphenated_uuid_form_is_a_key(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    key = uuid.uuid4()
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        statuses = {
            form: (await command(client, device, command_body(), value)).status_code
            for form, value in {"hex": key.hex, "braces": f"{{{key}}}", "urn": key.urn}.items()
        }
    assert statuses == {"hex": 400, "braces": 400, "urn": 400}


async def test_a_refused_body_leaves_its_key_unused(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    key = uuid.uuid4()
    bad = command_body(duration_ms=399)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        refused = await command(client, device, bad, key)
        accepted = await command(client, device, command_body(), key)
    assert_error(refused, 400)
    assert accepted.status_code == 200, accepted.text
    assert "idempotent-replayed" not in accepted.headers
    assert fake_openai.transcriptions.calls == 1


async def test_without_the_install_id_the_token_is_refused_401(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    """Authentication rule 2: a token without its install id is 401, whatever the body."""
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        headers = {"Authorization": device.headers["Authorization"]}
        response = await post(client, headers, raw_body(command_body()))
    assert_error(response, 401)
    assert response.headers["www-authenticate"].startswith('Bearer realm="lisan"')
    await _assert_nothing_ran(fake_openai, admin_engine)


def _sized_body(size: int) -> bytes:
    """A JSON command body of exactly `size` bytes (its audio field is padding)."""
    head = b'{"duration_ms": 2000, "screen_context": {"current_package": "", '
    head += b'"view_tree_summary": ""}, "audio_base64": "'
    tail = b'"}'
    return head + b"A" * (size - len(head) - len(tail)) + tail


async def _chunks(raw: bytes, size: int = 64 * 1024) -> AsyncIterator[bytes]:
    for start in range(0, len(raw), size):
        yield raw[start : start + size]


@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
async def test_a_body_over_1_mb_is_413(
    settings_factory: Callable[..., Settings],
    fake_openai: FakeOpenAI,
    admin_engine: AsyncEngine,
    chunked: bool,
) -> None:
    raw = _sized_body(COMMAND_BODY_LIMIT + 1)
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        headers = {**device.headers, "X-Idempotency-Key": str(uuid.uuid4())}
        response = await client.post(
            COMMANDS, content=_chunks(raw) if chunked else raw, headers=headers
        )
    assert ("content-length" in response.request.headers) is not chunked
    assert_matches_contract(response)
    assert_error(response, 413)
    await _assert_nothing_ran(fake_openai, admin_engine)


async def test_a_body_of_exactly_1_mb_is_read_then_refused_as_invalid(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """1 MB is the limit, not over it: the body is read and validated (no valid command body
    can be that large: 15 s of audio is 640,000 base64 characters)."""
    assert COMMAND_BODY_LIMIT == 1024 * 1024
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response = await post(client, device.headers, _sized_body(COMMAND_BODY_LIMIT))
    assert_error(response, 400)


async def test_silence_of_a_valid_length_passes_validation(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    """Validation is about the shape of the audio, not whether anyone spoke."""
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response = await command(client, device, command_body(silence(0.4)))
    assert response.status_code == 200, response.text
    assert response.json()["reprompt_reason"] == "no_speech"
