"""`lisan say "open telegram"`: the main job seen without a phone. espeak-ng speaks the sentence,
sox makes it the phone's format (16 kHz mono 16-bit PCM), and the command goes to a running
service as a demo device would send it: registered once (kept in `DEVICE_FILE`), the app on the
screen granted, the screen a chat in Telegram unless `--screen` names a JSON ScreenContext.

`speak` is also how the tests and the accuracy bench make their speech.
"""

from __future__ import annotations

import base64
import json
import secrets
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx

from lisan.commands.audio import BYTES_PER_MS
from lisan.core.locale import Locale
from lisan.core.wav import SAMPLE_RATE

VOICES = {Locale.EN_US: "en-us", Locale.AM_ET: "am"}
DEVICE_FILE = Path("var") / "say-device.json"
TIMEOUT_S = 30.0
DEMO_SCREEN: dict[str, str] = {
    "current_package": "org.telegram.messenger",
    "view_tree_summary": """[n1] FrameLayout
  [n2] TextView "Chats"
  [n3] EditText "Message" {editable}
  [n4] Button "Send" {clickable}
  [n5] RecyclerView {scrollable}
    [n6] TextView "Abebe" desc="Contact Abebe" {clickable}
    [n7] TextView "Kebede" {clickable}
  [n8] Button "Settings" {clickable}""",
}


class SayError(Exception):
    """Why the command could not be sent; one line, for the terminal."""


def speak(text: str, voice: str, rate: int = 175, pitch: int = 50) -> bytes:
    """`text` spoken by espeak-ng's `voice` at `rate` words a minute and `pitch` (0 to 99;
    175 and 50 are its own defaults), as 16 kHz mono 16-bit little-endian PCM."""
    for tool in ("espeak-ng", "sox"):
        if shutil.which(tool) is None:
            raise SayError(f"{tool} is not installed (make system-deps installs it)")
    wav = subprocess.run(  # noqa: S603 (fixed programs; the text is an argument, not a shell)
        ["espeak-ng", "-v", voice, "-s", str(rate), "-p", str(pitch), "--stdout", text],  # noqa: S607
        capture_output=True,
        check=True,
        timeout=TIMEOUT_S,
    ).stdout
    # `-R`: sox's dither (it resamples 22,050 Hz to 16 kHz) is seeded at random on every run, so
    # the same sentence made different audio each time: a test's confidence moved between 0.50
    # and 0.88 from one run to the next. Repeatable mode seeds it the same way every time.
    convert = ["sox", "-R", "-t", "wav", "-", "-t", "raw", "-r", str(SAMPLE_RATE), "-c", "1",
               "-b", "16", "-e", "signed-integer", "-"]  # fmt: skip
    return subprocess.run(  # noqa: S603
        convert, input=wav, capture_output=True, check=True, timeout=TIMEOUT_S
    ).stdout


def say(text: str, language: Locale, screen: dict[str, str], url: str) -> dict[str, Any]:
    """Speak `text`, send it as a command from the demo device, and return the answer."""
    pcm = speak(text, VOICES[language])
    with httpx.Client(base_url=url, timeout=TIMEOUT_S) as client:
        try:
            headers = _device(client)
            package = screen.get("current_package", "")
            if package:
                _post(client, "/v1/app-grants", {"package_name": package, "granted": True}, headers)
            body = {
                "audio_base64": base64.b64encode(pcm).decode(),
                "duration_ms": len(pcm) // BYTES_PER_MS,
                "language": language.value,
                "screen_context": screen,
            }
            answer = _post(
                client, "/v1/commands", body, {**headers, "X-Idempotency-Key": str(uuid.uuid4())}
            )
        except httpx.TransportError as exc:
            message = f"cannot reach {url} ({type(exc).__name__}); is `make run` running?"
            raise SayError(message) from None
    return answer


def _device(client: httpx.Client) -> dict[str, str]:
    """The demo device's headers: the one in DEVICE_FILE while its session works, else a new
    registration (kept for next time)."""
    if DEVICE_FILE.is_file():
        saved = json.loads(DEVICE_FILE.read_text())
        headers = _headers(saved["install_id"], saved["session_token"])
        if client.get("/v1/users/me", headers=headers).status_code == 200:
            return headers
    install_id = "lisan-say-" + secrets.token_hex(12)
    session = _post(client, "/v1/auth/register-device", {"install_id": install_id}, {})
    DEVICE_FILE.parent.mkdir(parents=True, exist_ok=True)
    DEVICE_FILE.write_text(
        json.dumps({"install_id": install_id, "session_token": session["session_token"]})
    )
    DEVICE_FILE.chmod(0o600)
    return _headers(install_id, session["session_token"])


def _headers(install_id: str, token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "X-Install-ID": install_id}


def _post(
    client: httpx.Client, path: str, body: dict[str, Any], headers: dict[str, str]
) -> dict[str, Any]:
    response = client.post(path, json=body, headers=headers)
    if response.status_code != 200:
        raise SayError(f"POST {path}: {response.status_code} {response.text[:200]}")
    answer: dict[str, Any] = response.json()
    return answer
