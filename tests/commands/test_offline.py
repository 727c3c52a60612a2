"""The offline provider (LISAN_PROVIDER=local, the default) end to end through POST /v1/commands,
with real speech from espeak-ng: no network, no fake. English and Amharic commands become plans;
speech that is no command, and noise, are REPROMPTed; a name that is no English word is heard
only once it is a vocabulary term; a command on an ungranted app's screen is refused."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager

from lisan.app import create_app
from lisan.core.settings import Settings
from tests.audio import b64, duration_ms, hum, padded, spoken
from tests.commands.route_support import command
from tests.commands.support import TELEGRAM, grant
from tests.conftest import client_for
from tests.factories import Device, register

Json = Any
CHAT = """[n1] FrameLayout
  [n2] TextView "Chats"
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Abebe" desc="Contact Abebe" {clickable}
  [n7] Button "Settings" {clickable}"""
CHAT_AM = """[n1] FrameLayout
  [n2] TextView "ውይይቶች"
  [n3] EditText "መልእክት" {editable}
  [n4] Button "ላክ" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "አበበ" {clickable}"""
BANK = "com.example.bank"


@pytest.fixture
async def offline(settings_factory: Callable[..., Settings]) -> AsyncIterator[httpx.AsyncClient]:
    """An app on its defaults: the offline provider."""
    settings = settings_factory(rate_limit_commands="100000/minute")
    assert settings.provider.value == "local"
    app = create_app(settings)
    async with LifespanManager(app), client_for(app) as client:
        yield client


async def say(
    client: httpx.AsyncClient,
    device: Device,
    text: str,
    *,
    language: str = "en-US",
    package: str = TELEGRAM,
    tree: str = CHAT,
) -> dict[str, Json]:
    pcm = padded(spoken(text, language), 2.0)
    body = {
        "audio_base64": b64(pcm),
        "duration_ms": duration_ms(pcm),
        "language": language,
        "screen_context": {"current_package": package, "view_tree_summary": tree},
    }
    response = await command(client, device, body)
    assert response.status_code == 200, response.text
    answer: dict[str, Json] = response.json()
    return answer


def steps(answer: dict[str, Json]) -> list[tuple[str, str | None]]:
    return [(s["action_type"], s.get("target_node_id")) for s in answer["action_plan"]["steps"]]


async def ready(client: httpx.AsyncClient, *packages: str) -> Device:
    device = await register(client)
    await grant(client, device, *(packages or (TELEGRAM,)))
    return device


async def test_english_commands_become_plans(offline: httpx.AsyncClient) -> None:
    device = await ready(offline)
    scroll = await say(offline, device, "scroll down")
    assert (scroll["status"], steps(scroll)) == ("ACCEPTED", [("SCROLL", "n5")])
    settings = await say(offline, device, "tap settings")
    assert (settings["status"], steps(settings)) == ("ACCEPTED", [("TAP", "n7")])
    send = await say(offline, device, "tap the send button")
    assert (send["status"], steps(send)) == ("CONFIRMATION_REQUIRED", [("TAP", "n4")])
    assert send["speech_response_text"] == "Tap “Send”? Say yes to go ahead."
    back = await say(offline, device, "go back")
    assert (back["status"], steps(back)) == ("ACCEPTED", [("BACK", None)])


async def test_amharic_commands_become_plans(offline: httpx.AsyncClient) -> None:
    device = await ready(offline)
    down = await say(offline, device, "ወደ ታች", language="am-ET", tree=CHAT_AM)
    assert (down["status"], steps(down)) == ("ACCEPTED", [("SCROLL", "n5")])
    back = await say(offline, device, "ተመለስ", language="am-ET", tree=CHAT_AM)
    assert (back["status"], steps(back)) == ("ACCEPTED", [("BACK", None)])
    send = await say(offline, device, "ላክ", language="am-ET", tree=CHAT_AM)
    assert (send["status"], steps(send)) == ("CONFIRMATION_REQUIRED", [("TAP", "n4")])
    assert send["speech_response_text"] == "«ላክ»ን ልጫን? ለመቀጠል «አዎ» ይበሉ።"


async def test_an_app_is_opened_from_the_launcher_by_its_name(
    offline: httpx.AsyncClient,
) -> None:
    device = await ready(offline)
    answer = await say(offline, device, "open telegram", package="", tree="")
    assert answer["status"] == "ACCEPTED"
    assert answer["action_plan"]["package_name"] == TELEGRAM
    assert steps(answer) == [("OPEN_APP", None)]


@pytest.mark.parametrize(
    ("text", "language"),
    [("how old is the president", "en-US"), ("the children are playing outside", "en-US")],
)
async def test_speech_that_is_no_command_is_reprompted(
    offline: httpx.AsyncClient, text: str, language: str
) -> None:
    device = await ready(offline)
    answer = await say(offline, device, text, language=language)
    assert answer["status"] == "REPROMPT"
    assert answer["reprompt_reason"] in {"low_confidence", "empty_transcript"}
    assert "action_plan" not in answer


async def test_noise_is_no_speech(offline: httpx.AsyncClient) -> None:
    device = await ready(offline)
    hiss = hum(2.0, amplitude=60)
    body = {
        "audio_base64": b64(hiss),
        "duration_ms": duration_ms(hiss),
        "language": "en-US",
        "screen_context": {"current_package": TELEGRAM, "view_tree_summary": CHAT},
    }
    answer = (await command(offline, device, body)).json()
    assert (answer["status"], answer["reprompt_reason"]) == ("REPROMPT", "no_speech")


async def test_a_name_is_heard_only_once_it_is_a_vocabulary_term(
    offline: httpx.AsyncClient,
) -> None:
    """ "call kebede" on a screen without that name: unheard before the term is added (no plan),
    heard after it (the planner then says honestly that Kebede is not on this screen)."""
    device = await ready(offline)
    before = await say(offline, device, "call kebede")
    assert before.get("reprompt_reason") != "target_not_on_screen"
    assert "action_plan" not in before or steps(before) != [("TAP", "n6")]
    added = await offline.post(
        "/v1/vocabulary", json={"term": "Kebede", "kind": "contact"}, headers=device.headers
    )
    assert added.status_code == 201, added.text
    after = await say(offline, device, "call kebede")
    assert (after["status"], after.get("reprompt_reason")) == ("REJECTED", "target_not_on_screen")


async def test_a_command_on_an_ungranted_screen_is_refused(offline: httpx.AsyncClient) -> None:
    device = await ready(offline)  # Telegram granted; the bank is not
    answer = await say(offline, device, "send it", package=BANK, tree=CHAT)
    assert answer["status"] in {"REJECTED", "REPROMPT"}
    assert "action_plan" not in answer
    if answer["status"] == "REJECTED":
        assert answer["reprompt_reason"] == "app_not_granted"


async def test_english_dictation_is_read_back_before_anything_is_typed(
    offline: httpx.AsyncClient,
) -> None:
    """ "type ..." on a screen with a text field: the words after the verb go into the field,
    and only once the user has heard them read back."""
    device = await ready(offline)
    answer = await say(offline, device, "type see you tomorrow")
    assert answer["status"] == "CONFIRMATION_REQUIRED"
    assert steps(answer) == [("TEXT_INPUT", "n3")]
    typed = answer["action_plan"]["steps"][0]["payload"]
    assert typed == "see you tomorrow"
    assert typed in answer["speech_response_text"]


async def test_tap_is_not_taken_for_type(offline: httpx.AsyncClient) -> None:
    """ "tap" and "type" differ by one vowel; a tap on a chat screen stays a tap."""
    device = await ready(offline)
    answer = await say(offline, device, "tap settings")
    assert (answer["status"], steps(answer)) == ("ACCEPTED", [("TAP", "n7")])


async def test_amharic_dictation_is_declined_with_its_reason(offline: httpx.AsyncClient) -> None:
    """Offline Amharic cannot transcribe free words: "<words> ጻፍ" gets an honest answer."""
    device = await ready(offline)
    answer = await say(offline, device, "ሰላም ጻፍ", language="am-ET", tree=CHAT_AM)
    assert (answer["status"], answer["reprompt_reason"]) == ("REJECTED", "dictation_unsupported")
    assert "action_plan" not in answer
