"""POST /v1/commands end to end, through a real OpenAI-compatible server on this machine."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pytest
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.core.settings import Settings
from lisan.telemetry.models import CommandEvent
from lisan.testing.openai_script import Answer
from lisan.testing.openai_server import FakeOpenAI
from lisan.testing.speech import hum, silence
from tests.fixtures.commands import app_with, command, command_body, speech_pcm
from tests.fixtures.devices import GMAIL, TELEGRAM, ready_device


async def test_an_accepted_command(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, admin_engine: AsyncEngine
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response = await command(client, device, command_body())
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "ACCEPTED"
    assert body["command_id"] == response.headers["x-request-id"]
    plan = body["action_plan"]
    assert plan["package_name"] == TELEGRAM
    assert plan["requires_user_confirmation"] is False
    assert [s["action_type"] for s in plan["steps"]] == ["OPEN_APP"]
    assert uuid.UUID(plan["plan_id"])
    assert uuid.UUID(plan["steps"][0]["step_id"])
    assert body["speak_code"] == "ACK"
    assert "reprompt_reason" not in body
    assert (fake_openai.transcriptions.calls, fake_openai.completions.calls) == (1, 1)
    async with admin_engine.connect() as connection:
        event = (await connection.execute(select(CommandEvent))).one()
    assert str(event.id) == body["command_id"]
    assert event.status == "ACCEPTED"
    timings = {"transcription", "rules_planning", "planning", "validation", "total"}
    assert set(event.server_timings) == timings


@pytest.mark.parametrize("pcm", [silence(2.0), hum(2.0)], ids=["silence", "quiet-room"])
async def test_near_silent_audio_is_reprompted_without_a_provider_call(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI, pcm: bytes
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response = await command(client, device, command_body(pcm))
    body = response.json()
    assert (body["status"], body["reprompt_reason"], body["speak_code"]) == (
        "REPROMPT",
        "no_speech",
        "RETRY",
    )
    assert "action_plan" not in body
    assert fake_openai.calls == 0


async def test_amharic_speech_is_heard_and_sent_as_am(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        pcm = speech_pcm("ቴሌግራምን ክፈት", "am-ET")
        response = await command(client, device, command_body(pcm, language=None))
    assert response.json()["status"] == "ACCEPTED"
    assert fake_openai.transcriptions.last.field("language") == "am"


async def test_a_plan_for_an_app_not_granted_never_reaches_the_phone(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(
        Answer.plan(
            {
                "package_name": GMAIL,
                "steps": [
                    {
                        "action_type": "TAP",
                        "target_node_id": "n4",
                        "payload": None,
                        "is_destructive": False,
                    }
                ],
                "needs_confirmation": False,
                "speech_response_text": None,
            }
        )
    )
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client, TELEGRAM)
        response = await command(client, device, command_body())
    body = response.json()
    assert (body["status"], body["reprompt_reason"]) == ("REJECTED", "app_not_granted")
    assert "action_plan" not in body


async def test_a_destructive_step_needs_spoken_confirmation(
    settings_factory: Callable[..., Settings], fake_openai: FakeOpenAI
) -> None:
    fake_openai.completions.then(
        Answer.plan(
            {
                "package_name": TELEGRAM,
                "steps": [
                    {
                        "action_type": "TAP",
                        "target_node_id": "n7",
                        "payload": None,
                        "is_destructive": True,
                    }
                ],
                "needs_confirmation": False,
                "speech_response_text": None,
            }
        )
    )
    async with app_with(settings_factory, fake_openai.base_url) as client:
        device = await ready_device(client)
        response = await command(client, device, command_body())
    body = response.json()
    assert (body["status"], body["speak_code"]) == ("CONFIRMATION_REQUIRED", "CONFIRM")
    assert body["action_plan"]["requires_user_confirmation"] is True
    assert "Delete chat" in body["speech_response_text"]
