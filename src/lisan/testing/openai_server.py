"""A real OpenAI-compatible HTTP server (uvicorn on 127.0.0.1) for tests and the bench.

It serves POST /audio/transcriptions and POST /chat/completions (with or without a /v1
prefix), records what it received and answers from a per-endpoint script: queued answers
first, then the endpoint's default. An answer may be JSON with any status and headers, a
non-JSON body, a delay, or a dropped connection.

In tests: the `fake_openai` fixture. For the bench, a separate
process answering every call with the defaults after a delay:

    python -m lisan.testing.openai_server --port 9100 --delay 0.3

With `transcribe_upstream` set (`bench.interop`), transcriptions are forwarded to a real
server and its answers recorded (`Endpoint.answers`), while planning stays the fake's; with
`plan_upstream` (`bench.planner_interop`), plans are forwarded and recorded the same way.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import socket
from collections.abc import Iterator, Mapping
from typing import Any

import uvicorn
from starlette.types import Receive, Scope, Send

from lisan.testing.openai_script import (
    DEFAULT_PLAN,
    DEFAULT_TRANSCRIPTION,
    Answer,
    ChatRequest,
    Endpoint,
    TranscriptionRequest,
    transcription_request,
)


class FakeOpenAI:
    def __init__(
        self,
        *,
        delay_s: float = 0.0,
        record: bool = True,
        transcribe_upstream: str | None = None,
        plan_upstream: str | None = None,
    ) -> None:
        self.transcriptions: Endpoint[TranscriptionRequest] = Endpoint(
            Answer.json(DEFAULT_TRANSCRIPTION)
        )
        self.completions: Endpoint[ChatRequest] = Endpoint(Answer.plan(DEFAULT_PLAN))
        self.delay_s = delay_s  # added to every answer (the bench's provider latency)
        self.record = record  # False: count calls only (a long bench run)
        self.transcribe_upstream = transcribe_upstream  # a real server's base URL (with /v1)
        self.plan_upstream = plan_upstream  # a real planner's base URL (with /v1)
        self.base_url = ""
        self._closing = asyncio.Event()
        self._server: uvicorn.Server | None = None
        self._task: asyncio.Task[None] | None = None

    @property
    def calls(self) -> int:
        return self.transcriptions.calls + self.completions.calls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = await _read_body(receive)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        path = str(scope["path"])
        route = path.removeprefix("/v1")
        if scope["method"] == "POST" and route == "/audio/transcriptions":
            answer = self._on_transcription(path, body, headers)
            if self.transcribe_upstream is not None:
                index = self.transcriptions.calls - 1
                url = self.transcribe_upstream + route
                answer = await self._forwarded(url, body, headers, self.transcriptions, index)
        elif scope["method"] == "POST" and route == "/chat/completions":
            answer = self._on_completion(path, body, headers)
            if self.plan_upstream is not None:
                index = self.completions.calls - 1
                url = self.plan_upstream + route
                answer = await self._forwarded(url, body, headers, self.completions, index)
        else:
            answer = Answer.error(404)
        await self._answer(answer, send)

    def _on_transcription(self, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        self.transcriptions.calls += 1
        if self.record:
            self.transcriptions.requests.append(transcription_request(path, body, headers))
        return self.transcriptions.next_answer()

    def _on_completion(self, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        self.completions.calls += 1
        if self.record:
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
            self.completions.requests.append(ChatRequest(path, body, parsed, headers))
        return self.completions.next_answer()

    async def _forwarded(
        self, url: str, body: bytes, headers: dict[str, str], endpoint: Endpoint[Any], index: int
    ) -> Answer:
        """The upstream's answer to the same request, recorded under the request's index."""
        import httpx  # only the interop run forwards

        sent = {k: v for k, v in headers.items() if k in ("content-type", "authorization")}
        async with httpx.AsyncClient(timeout=120) as client:
            response = await client.post(url, content=body, headers=sent)
        endpoint.answers[index] = (response.status_code, response.content)
        content_type = response.headers.get("content-type", "application/json")
        return Answer(
            response.status_code, raw=response.content, headers={"content-type": content_type}
        )

    async def _answer(self, answer: Answer, send: Send) -> None:
        delay_s = answer.delay_s + self.delay_s
        if delay_s > 0:
            # Cut short when the server stops, so a slow answer never holds up a test's end.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._closing.wait(), delay_s)
        if answer.drop:
            # Promise a body, send none and return: uvicorn closes the connection mid-answer.
            await send(_start(200, {"content-type": "application/json", "content-length": "64"}))
            return
        payload = answer.raw if answer.raw is not None else json.dumps(answer.body).encode()
        content_type = "text/html" if answer.raw is not None else "application/json"
        headers = {"content-type": content_type, **answer.headers}
        headers["content-length"] = str(len(payload))
        await send(_start(answer.status, headers))
        await send({"type": "http.response.body", "body": payload})

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Serve in the running event loop until stop()."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        # No log_config, log_level or access_log: the test process's logging stays untouched.
        config = uvicorn.Config(self, lifespan="off", log_config=None, log_level=None)
        self._server = _InLoopServer(config)
        self._task = asyncio.create_task(self._server.serve(sockets=[sock]))
        while not self._server.started:
            if self._task.done():
                self._task.result()  # raises what stopped it
                raise RuntimeError("the fake OpenAI server stopped before it started")
            await asyncio.sleep(0.005)
        self.base_url = f"http://{host}:{sock.getsockname()[1]}"

    async def stop(self) -> None:
        self._closing.set()
        if self._server is not None and self._task is not None:
            self._server.should_exit = True
            await self._task


class _InLoopServer(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield  # inside a test run the signals belong to pytest

    async def main_loop(self) -> None:
        # uvicorn's loop notices should_exit every 0.1 s; a test stops it sooner.
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 1) % 864_000
            await asyncio.sleep(0.01)


async def _read_body(receive: Receive) -> bytes:
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _start(status: int, headers: Mapping[str, str]) -> dict[str, Any]:
    return {
        "type": "http.response.start",
        "status": status,
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible provider.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    parser.add_argument("--said", help="what every transcription hears (default: an instruction)")
    args = parser.parse_args(argv)
    fake = FakeOpenAI(delay_s=args.delay, record=False)
    if args.said is not None:
        heard = {**DEFAULT_TRANSCRIPTION, "text": args.said}
        fake.transcriptions.default = Answer.json(heard)
    config = uvicorn.Config(
        fake, host=args.host, port=args.port, lifespan="off", log_level="warning", access_log=False
    )
    print(f"fake OpenAI provider on http://{args.host}:{args.port}", flush=True)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
