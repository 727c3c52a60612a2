from __future__ import annotations

import io
import math
import wave

import pytest

from lisan.core.locale import Locale
from lisan.providers.base import Expected, Transcript
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from tests.fixtures.commands import TRANSCRIPT
from tests.fixtures.provider import API_KEY, PCM, MakeProvider


async def test_audio_goes_as_a_16khz_mono_16bit_wav(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    await make_provider().transcribe(PCM, Locale.EN_US, Expected([], None, []))

    request = fake_openai.transcriptions.last
    assert request.path == "/audio/transcriptions"
    assert request.filename == "audio.wav"
    assert request.file_content_type == "audio/wav"
    assert request.file is not None
    with wave.open(io.BytesIO(request.file), "rb") as wav:
        assert wav.getframerate() == 16_000
        assert wav.getnchannels() == 1
        assert wav.getsampwidth() == 2
        assert wav.getnframes() == len(PCM) // 2
        assert wav.readframes(wav.getnframes()) == PCM


async def test_form_fields_and_credentials(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    await make_provider(openai_transcribe_model="whisper-x").transcribe(
        PCM, Locale.EN_US, Expected([], None, [])
    )

    request = fake_openai.transcriptions.last
    assert request.field("model") == "whisper-x"
    assert request.field("response_format") == "json"
    assert request.fields["include[]"] == ["logprobs"]
    assert request.headers["authorization"] == f"Bearer {API_KEY}"


async def test_no_authorization_without_an_api_key(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    await make_provider(openai_api_key=None).transcribe(PCM, Locale.EN_US, Expected([], None, []))
    assert "authorization" not in fake_openai.transcriptions.last.headers


@pytest.mark.parametrize(("language", "code"), [(Locale.AM_ET, "am"), (Locale.EN_US, "en")])
async def test_language_is_the_iso_639_1_code(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, language: Locale, code: str
) -> None:
    await make_provider().transcribe(PCM, language, Expected([], None, []))
    assert fake_openai.transcriptions.last.field("language") == code


async def test_vocabulary_is_the_prompt(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    await make_provider().transcribe(
        PCM, Locale.AM_ET, Expected(["Abebe Bikila", "ዘምዘም", "Telegram"], None, [])
    )
    assert fake_openai.transcriptions.last.field("prompt") == "Abebe Bikila, ዘምዘም, Telegram"


async def test_no_prompt_without_vocabulary(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    await make_provider().transcribe(PCM, Locale.EN_US, Expected([], None, []))
    assert "prompt" not in fake_openai.transcriptions.last.fields


async def test_base_url_trailing_slash_is_ignored(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    provider = make_provider(openai_base_url=f"{fake_openai.base_url}/v1/")
    await provider.transcribe(PCM, Locale.EN_US, Expected([], None, []))
    assert fake_openai.transcriptions.last.path == "/v1/audio/transcriptions"


async def test_confidence_is_exp_of_the_mean_logprob(make_provider: MakeProvider) -> None:
    transcript = await make_provider().transcribe(PCM, Locale.EN_US, Expected([], None, []))
    # The fake's default answer: logprobs -0.05 and -0.15.
    assert transcript.text == TRANSCRIPT
    assert transcript.confidence == pytest.approx(math.exp(-0.1))


@pytest.mark.parametrize(
    "answer",
    [
        {"text": "go back"},
        {"text": "go back", "logprobs": []},
        {"text": "go back", "logprobs": None},
    ],
)
async def test_no_confidence_without_logprobs(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, answer: dict[str, object]
) -> None:
    fake_openai.transcriptions.then(Answer.json(answer))
    transcript = await make_provider().transcribe(PCM, Locale.EN_US, Expected([], None, []))
    assert transcript == Transcript("go back", None)


async def test_confidence_never_exceeds_one(
    make_provider: MakeProvider, fake_openai: FakeOpenAI
) -> None:
    answer = {"text": "go home", "logprobs": [{"token": "go", "logprob": 0.01}]}
    fake_openai.transcriptions.then(Answer.json(answer))
    transcript = await make_provider().transcribe(PCM, Locale.EN_US, Expected([], None, []))
    assert transcript.confidence == 1.0


@pytest.mark.parametrize("extreme", [-1e308, -1e300, -5000.0])
async def test_extreme_logprobs_are_a_zero_confidence_never_a_500(
    make_provider: MakeProvider, fake_openai: FakeOpenAI, extreme: float
) -> None:
    """Extreme logprobs never overflow the mean (never a 500): a probability that small is zero,
    and the confidence gate then REPROMPTs."""
    tokens = [{"token": "go", "logprob": extreme}, {"token": " home", "logprob": extreme}]
    fake_openai.transcriptions.then(Answer.json({"text": "go home", "logprobs": tokens}))
    transcript = await make_provider().transcribe(PCM, Locale.EN_US, Expected([], None, []))
    assert transcript == Transcript("go home", 0.0)
