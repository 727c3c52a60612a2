"""Commands the offline decoder must hear, by voice:
- on a screen with a text field, a command is not lost to dictation: dictation is a search of
  its own, run only when the command grammar heard nothing it trusts (inside the command grammar
  it took "tap voice call" and "select yonas" as a dictation and refused them);
- a higher voice (espeak-ng's female voice raised to pitch 80; its default is 50) still gets the
  command it says. The real-voice figures by pitch band are `bench/real_voices.py`'s;
- a slow higher voice is not lost to the garbage loop: at pocketsphinx's default word insertion
  penalty (0.65) the loop took "open settings" said by espeak-ng's female voice at 140 words a
  minute on the launcher in every rendering (`recognizer.WORD_INSERTION_PENALTY`)."""

from __future__ import annotations

import pytest

from lisan.core.locale import Locale
from lisan.providers.base import Expected, Screen
from lisan.providers.local.pool import hear_in_worker
from lisan.providers.local.provider import request_for
from lisan.providers.local.vocabulary import ENGLISH_VERBS
from lisan.say import speak
from lisan.testing.speech import padded, spoken

TELEGRAM, CONTACTS = "org.telegram.messenger", "com.android.contacts"
LAUNCHER = "com.android.launcher"
# The accuracy bench's granted apps: the launcher's grammar names each of them.
APPS = [CONTACTS, "com.android.settings", "com.google.android.apps.maps",
        "com.google.android.apps.photos", "com.google.android.gm", "com.spotify.music",
        "et.ethiotelecom.telebirr", TELEGRAM]  # fmt: skip
CHAT = """[n1] FrameLayout
  [n2] TextView "Chats"
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Abebe" desc="Contact Abebe" {clickable}
  [n7] Button "Settings" {clickable}
  [n10] ImageButton desc="Voice call" {clickable}"""
CONTACT_LIST = """[n1] FrameLayout
  [n2] EditText "Search contacts" {editable}
  [n3] RecyclerView {scrollable}
    [n4] TextView "Almaz" {clickable}
    [n7] TextView "Yonas" {clickable}
  [n8] ImageButton desc="Add contact" {clickable}"""
HIGH_PITCH = 80  # espeak-ng's pitch scale, 0-99; 50 is the voice's own


def _higher(text: str) -> bytes:
    """`text` said by espeak-ng's female voice at a raised pitch, as 16 kHz 16-bit PCM."""
    return padded(speak(text, "en-us+f3", pitch=HIGH_PITCH), 2.0)


def _hear(
    pcm: bytes, package: str, tree: str, apps: list[str] | None = None
) -> tuple[str, float | None]:
    screen = Screen(package, tree, granted=package != LAUNCHER)
    request = request_for(Expected([], screen, apps or [package]), Locale.EN_US, 0.5)
    heard = hear_in_worker(pcm, request)
    return heard.text, heard.confidence


@pytest.mark.parametrize(
    ("command", "package", "tree"),
    [("tap voice call", TELEGRAM, CHAT), ("select yonas", CONTACTS, CONTACT_LIST)],
)
def test_a_command_on_a_screen_with_a_text_field_is_not_lost_to_dictation(
    command: str, package: str, tree: str
) -> None:
    text, confidence = _hear(padded(spoken(command), 2.0), package, tree)
    # "click yonas" is the same command: every tap verb taps
    assert text.split()[0] in ENGLISH_VERBS["tap"]
    assert text.split()[-1] == command.split()[-1]
    assert confidence is not None
    assert confidence >= 0.5


@pytest.mark.parametrize(("command", "heard"), [("tap send", "tap the send")])
def test_a_higher_voice_still_gets_the_command_it_says(command: str, heard: str) -> None:
    text, confidence = _hear(_higher(command), TELEGRAM, CHAT)
    assert text in {command, heard}
    assert confidence is not None
    assert confidence >= 0.5


@pytest.mark.parametrize("command", ["open settings", "open contacts", "launch spotify"])
def test_a_slow_higher_voice_opens_the_app_it_names(command: str) -> None:
    pcm = padded(speak(command, "en-us+f3", rate=140), 2.0)
    text, confidence = _hear(pcm, LAUNCHER, "", APPS)
    assert text == command
    assert confidence is not None
    assert confidence >= 0.5
