"""The fake server in front of a real transcriber (`make interop`) pairs each upstream answer
with the request it answers, however late it comes: a slow transcription answered after its
client gave up is never taken for the next request's answer."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from lisan.testing.openai_script import Answer
from tests.fixtures.provider import served_fake


async def test_a_late_upstream_answer_is_kept_with_its_own_request() -> None:
    async with (
        served_fake() as upstream,
        served_fake(transcribe_upstream=upstream.base_url + "/v1") as front,
    ):
        upstream.transcriptions.then(
            Answer.json({"text": "first"}, delay_s=0.5), Answer.json({"text": "second"})
        )
        url = front.base_url + "/v1/audio/transcriptions"
        async with httpx.AsyncClient() as client:
            with pytest.raises(httpx.ReadTimeout):  # the client gives up on the first
                await client.post(url, content=b"one", timeout=0.1)
            second = await client.post(url, content=b"two", timeout=5)
            assert second.json() == {"text": "second"}
            for _ in range(40):  # the first answer arrives after the second
                if len(front.transcriptions.answers) == 2:
                    break
                await asyncio.sleep(0.05)

        answers = front.transcriptions.answers
        assert sorted(answers) == [0, 1]
        assert json.loads(answers[0][1]) == {"text": "first"}
        assert json.loads(answers[1][1]) == {"text": "second"}
