"""Where the load runs and what it records: py-spy profiles of a server (PROFILE_MODE, a
bench's own knob), and this process and what it starts pinned off the servers' core."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.kit.servers import ROOT

# py-spy's flags and sampling rate (Hz) for each PROFILE_MODE.
PROFILE_MODES = {
    "nonblocking": (["--nonblocking"], 1000),
    "blocking": ([], 100),
    "native": (["--native"], 250),
    "gil": (["--gil", "--nonblocking"], 1000),
}


@contextmanager
def profiled(pid: int, output: Path | None, seconds: int) -> Iterator[None]:
    """py-spy recording `pid` for `seconds` in the background, when `output` is given.

    PROFILE_MODE in the environment says how: `nonblocking` (the default: Python frames, the
    server never paused, 1000 Hz; a stack read while it changes may come out cut short),
    `blocking` (Python frames, the server paused at each sample, 100 Hz: whole stacks) or
    `native` (the C under them too: uvloop, the drivers, ggml; paused, 250 Hz) or `gil` (only the
    thread holding the GIL, never paused, 1000 Hz: the Python work, without the threads waiting
    their turn that `nonblocking` counts as busy). A pausing mode
    slows the server, so that round's own figures are not the bench's."""
    if output is None:
        yield
        return
    spy = ROOT / ".venv" / "bin" / "py-spy"
    command = [str(spy), "record", "-p", str(pid), "-d", str(seconds), "-f", "raw"]
    mode = os.environ.get("PROFILE_MODE", "nonblocking")
    if mode not in PROFILE_MODES:
        raise SystemExit(f"PROFILE_MODE={mode}: one of {', '.join(PROFILE_MODES)}")
    flags, rate_hz = PROFILE_MODES[mode]
    command += [*flags, "--rate", str(rate_hz), "--subprocesses"]
    recorder = subprocess.Popen(
        [*command, "-o", str(output)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        yield
    finally:
        try:
            _, errors = recorder.communicate(timeout=seconds + 30)
        except subprocess.TimeoutExpired:
            recorder.kill()
            recorder.communicate(timeout=5)
            errors = b"timed out"
        if recorder.returncode != 0:
            print(f"  py-spy failed: {errors.decode(errors='replace').strip()[-300:]}")


def pin_load_away_from(core: str | None) -> str | None:
    """Pins this process, and so wrk and the fake provider it starts, to the cores other than
    the servers' (`None`: unpinned, or no other core). On the servers' core they preempted the
    server being measured and took its caches: the same build measured twice in one run
    differed by up to 20% a round."""
    if core is None:
        return None
    others = os.sched_getaffinity(0) - _cores(core)
    if not others:
        return None
    os.sched_setaffinity(0, others)
    return ",".join(str(number) for number in sorted(others))


def _cores(listed: str) -> set[int]:
    """The cores of taskset's list form (`0`, `0,2`, `0-1`), as a bench's --core takes it."""
    cores: set[int] = set()
    for item in listed.split(","):
        first, _, last = item.partition("-")
        try:
            cores.update(range(int(first), int(last or first) + 1))
        except ValueError:
            raise SystemExit(f"cores {listed}: not a list of cores (0, 0,2 or 0-1)") from None
    return cores
