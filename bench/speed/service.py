"""The service as the load benches run it: `lisan serve`'s environment against the fake
provider with limits that never say no, a registered device granted Telegram, and the
launcher screen a command is said on."""

from __future__ import annotations

import os
from pathlib import Path

import httpx

INSTALL_ID = "bench-commands-install-01"
TELEGRAM = "org.telegram.messenger"
LAUNCHER = "com.google.android.apps.nexuslauncher"
HUGE_LIMIT = "1000000000/minute"  # the limiters still run on every request; they never say no
UNREFUSED_LIMITS = {
    f"LISAN_RATE_LIMIT_{name}": HUGE_LIMIT for name in ("COMMANDS", "USER", "IP", "REGISTER")
}

# A launcher home screen with the app drawer open, as the phone reduces it: 40 lines.
VIEW_TREE = "\n".join(
    [
        "[n1] FrameLayout",
        "  [n2] LinearLayout",
        '    [n3] TextView "12:41"',
        '    [n4] ImageView desc="Wi-Fi signal full"',
        '    [n5] ImageView desc="Battery 76 percent"',
        '  [n6] EditText "Search apps" {clickable, editable}',
        "  [n7] RecyclerView {scrollable}",
        '    [n8] TextView "Calculator" desc="Calculator" {clickable}',
        '    [n9] TextView "Calendar" desc="Calendar" {clickable}',
        '    [n10] TextView "Camera" desc="Camera" {clickable}',
        '    [n11] TextView "Chrome" desc="Chrome" {clickable}',
        '    [n12] TextView "Clock" desc="Clock" {clickable}',
        '    [n13] TextView "Contacts" desc="Contacts" {clickable}',
        '    [n14] TextView "Drive" desc="Drive" {clickable}',
        '    [n15] TextView "Files" desc="Files" {clickable}',
        '    [n16] TextView "Gmail" desc="Gmail" {clickable}',
        '    [n17] TextView "Google" desc="Google" {clickable}',
        '    [n18] TextView "Maps" desc="Maps" {clickable}',
        '    [n19] TextView "Messages" desc="Messages" {clickable}',
        '    [n20] TextView "Phone" desc="Phone" {clickable}',
        '    [n21] TextView "Photos" desc="Photos" {clickable}',
        '    [n22] TextView "Play Store" desc="Play Store" {clickable}',
        '    [n23] TextView "Settings" desc="Settings" {clickable}',
        '    [n24] TextView "Telebirr" desc="Telebirr" {clickable}',
        '    [n25] TextView "Telegram" desc="Telegram" {clickable}',
        '    [n26] TextView "WhatsApp" desc="WhatsApp" {clickable}',
        '    [n27] TextView "YouTube" desc="YouTube" {clickable}',
        '    [n28] TextView "Weather" desc="Weather" {clickable}',
        '    [n29] TextView "Wallet" desc="Wallet" {clickable}',
        '    [n30] TextView "Voice Recorder" desc="Voice Recorder" {clickable}',
        '    [n31] TextView "Translate" desc="Translate" {clickable}',
        '    [n32] TextView "Spotify" desc="Spotify" {clickable}',
        '    [n33] TextView "Keep Notes" desc="Keep Notes" {clickable}',
        '    [n34] TextView "Meet" desc="Meet" {clickable}',
        '    [n35] TextView "Fitbit" desc="Fitbit" {clickable}',
        '    [n36] TextView "Duolingo" desc="Duolingo" {clickable}',
        "  [n37] LinearLayout",
        '    [n38] ImageView desc="Back" {clickable}',
        '    [n39] ImageView desc="Home" {clickable}',
        '    [n40] ImageView desc="Overview" {clickable}',
    ]
)


def ready_device(base: str) -> dict[str, str]:
    """Register a device, grant Telegram, and return the device's headers."""
    registered = httpx.post(f"{base}/v1/auth/register-device", json={"install_id": INSTALL_ID})
    registered.raise_for_status()
    headers = {
        "Authorization": f"Bearer {registered.json()['session_token']}",
        "X-Install-ID": INSTALL_ID,
    }
    granted = httpx.post(
        f"{base}/v1/app-grants",
        json={"package_name": TELEGRAM, "granted": True},
        headers=headers,
    )
    granted.raise_for_status()
    return headers


def server_env(database_url: str, provider_port: int, workdir: Path) -> dict[str, str]:
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("LISAN_")},
        "LISAN_DATABASE_URL": database_url,
        "LISAN_PROVIDER": "openai",
        "LISAN_OPENAI_BASE_URL": f"http://127.0.0.1:{provider_port}",
        "LISAN_OPENAI_API_KEY": "bench",
        **UNREFUSED_LIMITS,
        # One device sends every command: its share of the bulkhead is the whole of it.
        "LISAN_PROVIDER_MAX_PER_USER": "64",
        "LISAN_STORAGE_DIR": str(workdir / "objects"),
    }
