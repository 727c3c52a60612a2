"""The offline provider (LISAN_PROVIDER=local, the default) end to end through POST /v1/commands,
with real speech from espeak-ng: no network, no fake. English and Amharic commands become plans;
speech that is no command, and noise, are REPROMPTed; a name that is no English word is heard
only once it is a vocabulary term; a command on an ungranted app's screen is refused."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from lisan.core.settings import Settings
from lisan.providers.local.whisper import weights
from lisan.testing.speech import b64, duration_ms, hum
from tests.fixtures.app import served
from tests.fixtures.commands import command
from tests.fixtures.devices import TELEGRAM, ready_device
from tests.fixtures.offline import CHAT, CHAT_AM, say, steps

BANK = "com.example.bank"


async def test_english_commands_become_plans(offline: httpx.AsyncClient) -> None:
    device = await ready_device(offline)
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
    device = await ready_device(offline)
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
    device = await ready_device(offline)
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
    device = await ready_device(offline)
    answer = await say(offline, device, text, language=language)
    assert answer["status"] == "REPROMPT"
    assert answer["reprompt_reason"] in {"low_confidence", "empty_transcript"}
    assert "action_plan" not in answer


async def test_noise_is_no_speech(offline: httpx.AsyncClient) -> None:
    device = await ready_device(offline)
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
    """ "call bekele" on a screen without that name: unheard before the term is added (no plan),
    heard after it (the planner then says honestly that Bekele is not on this screen)."""
    device = await ready_device(offline)
    before = await say(offline, device, "call bekele")
    assert before.get("reprompt_reason") != "target_not_on_screen"
    assert "action_plan" not in before or steps(before) != [("TAP", "n6")]
    added = await offline.post(
        "/v1/vocabulary", json={"term": "Bekele", "kind": "contact"}, headers=device.headers
    )
    assert added.status_code == 201, added.text
    after = await say(offline, device, "call bekele")
    assert (after["status"], after.get("reprompt_reason")) == ("REJECTED", "target_not_on_screen")


@pytest.mark.parametrize(
    ("text", "language", "tree"),
    [("tap send", "en-US", CHAT), ("send it", "en-US", CHAT), ("ላክ", "am-ET", CHAT_AM)],
    ids=["tap-send", "send-it", "send-am"],
)
async def test_a_command_on_an_ungranted_screen_is_answered_app_not_granted(
    offline: httpx.AsyncClient, text: str, language: str, tree: str
) -> None:
    """The offline provider hears the command against the screen's labels (they never leave
    the machine) and says the app is not allowed, rather than ask the user to repeat a command
    it could not have heard: the phone can then tell the user what to do."""
    device = await ready_device(offline)  # Telegram granted; the bank is not
    answer = await say(offline, device, text, language=language, package=BANK, tree=tree)
    assert (answer["status"], answer.get("reprompt_reason")) == ("REJECTED", "app_not_granted")
    assert "action_plan" not in answer


async def test_english_dictation_is_read_back_before_anything_is_typed(
    offline: httpx.AsyncClient,
) -> None:
    """ "type ..." on a screen with a text field: the words after the verb go into the field,
    and only once the user has heard them read back."""
    device = await ready_device(offline)
    answer = await say(offline, device, "type see you tomorrow")
    assert answer["status"] == "CONFIRMATION_REQUIRED"
    assert steps(answer) == [("TEXT_INPUT", "n3")]
    typed = answer["action_plan"]["steps"][0]["payload"]
    assert typed == "see you tomorrow"
    assert typed in answer["speech_response_text"]


async def test_tap_is_not_taken_for_type(offline: httpx.AsyncClient) -> None:
    """ "tap" and "type" differ by one vowel; a tap on a chat screen stays a tap."""
    device = await ready_device(offline)
    answer = await say(offline, device, "tap settings")
    assert (answer["status"], steps(answer)) == ("ACCEPTED", [("TAP", "n7")])


async def test_amharic_dictation_is_declined_with_its_reason(offline: httpx.AsyncClient) -> None:
    """Offline Amharic cannot transcribe free words: "<words> ጻፍ" gets an honest answer."""
    device = await ready_device(offline)
    answer = await say(offline, device, "ሰላም ጻፍ", language="am-ET", tree=CHAT_AM)
    assert (answer["status"], answer["reprompt_reason"]) == ("REJECTED", "dictation_unsupported")
    assert "action_plan" not in answer


# The offline planner matches words, not letters: a fixed verb's word ("send", ሰርዝ) or a named
# label taps a node only when it is a whole word of the node's label; a label that merely looks
# like it ("Unsend", "Sent", "Delegate") is asked about, never tapped at once.
UNSEND = """[n1] FrameLayout
  [n2] TextView "Messages"
  [n3] Button "Unsend" {clickable}"""
SENT = """[n1] FrameLayout
  [n2] Button "Send" {clickable disabled}
  [n3] Button "Sent" {clickable}"""
DELEGATE = """[n1] FrameLayout
  [n2] TextView "ውይይቶች"
  [n3] Button "Delegate" {clickable}"""
ARCHIVE = """[n1] FrameLayout
  [n2] Button "Unarchive" {clickable}
  [n3] Button "Archive" {clickable}"""
SOUND_AM = """[n1] FrameLayout
  [n2] TextView "ድምጽ ማጉያ" {clickable}
  [n3] TextView "ድምጽ" {clickable}"""


@pytest.mark.parametrize(
    ("text", "language", "tree", "shown"),
    [
        ("send it", "en-US", UNSEND, "Unsend"),
        ("send it", "en-US", SENT, "Sent"),
        ("tap send", "en-US", SENT, "Sent"),  # the only "Send" is disabled
        ("ሰርዝ", "am-ET", DELEGATE, "Delegate"),
    ],
    ids=["send-unsend", "send-sent", "tap_send-sent", "delete-delegate"],
)
async def test_a_label_that_only_looks_like_the_word_said_is_asked_never_tapped(
    offline: httpx.AsyncClient, text: str, language: str, tree: str, shown: str
) -> None:
    """A label that only looks like what was said is asked about, naming it, never tapped; in
    Amharic the second ear may not confirm pocketsphinx at all, and then nothing is heard."""
    device = await ready_device(offline)
    answer = await say(offline, device, text, language=language, tree=tree)
    if language == "am-ET" and answer["status"] == "REPROMPT":
        assert "action_plan" not in answer
        return
    assert (answer["status"], steps(answer)) == ("CONFIRMATION_REQUIRED", [("TAP", "n3")])
    assert shown in answer["speech_response_text"]  # the question names what it would tap


@pytest.mark.parametrize(
    ("text", "language", "tree"),
    [("tap archive", "en-US", ARCHIVE), ("ድምጽ ንካ", "am-ET", SOUND_AM)],
    ids=["archive", "sound-am"],
)
async def test_an_exact_label_is_still_tapped_at_once(
    offline: httpx.AsyncClient, text: str, language: str, tree: str
) -> None:
    device = await ready_device(offline)
    answer = await say(offline, device, text, language=language, tree=tree)
    assert (answer["status"], steps(answer)) == ("ACCEPTED", [("TAP", "n3")])


async def test_without_the_scorers_weights_a_command_is_asked_again_and_the_log_says_why(
    settings_factory: Callable[..., Settings],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
    tmp_path: Path,
) -> None:
    """Weights missing or not the pinned files: the service starts, a real command is answered
    REPROMPT (nothing is acted on by one ear alone), never a 500, and the log says why."""
    (tmp_path / "model.bin").write_bytes(b"corrupt")
    monkeypatch.setattr(weights, "model_dir", lambda: tmp_path)
    settings = settings_factory(rate_limit_commands="100000/minute")
    with caplog.at_level(logging.ERROR, logger="lisan.providers.local"):
        async with served(settings) as client:
            device = await ready_device(client)
            answer = await say(client, device, "tap settings")
    assert (answer["status"], answer["reprompt_reason"]) == ("REPROMPT", "empty_transcript")
    assert "action_plan" not in answer
    logged = [r for r in caplog.records if r.name == "lisan.providers.local"]
    assert logged
    assert "scorer unavailable" in logged[0].getMessage()
    assert "model.bin" in logged[0].__dict__["error"]
