"""A real OpenAI-compatible HTTP server (uvicorn on 127.0.0.1) for tests and the bench.

It serves POST /audio/transcriptions and POST /chat/completions (with or without a /v1
prefix), records what it received and answers from a per-endpoint script: queued answers
first, then the endpoint's default. An answer may be JSON with any status and headers, a
non-JSON body, a delay, or a dropped connection.

In tests: the `fake_openai` fixture. For the bench, a separate process answering every call
with the defaults after a delay:

    python -m tests.fakes.openai_server --port 9100 --delay 0.3

With `transcribe_upstream` set (`bench.interop`), transcriptions are forwarded to a real
server and its answers recorded (`Endpoint.answers`), while planning stays the fake's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import email
import email.message
import json
import socket
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import pytest
import uvicorn

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

DEFAULT_TRANSCRIPTION: dict[str, Any] = {
    "text": "open telegram",
    "logprobs": [
        {"token": "open", "logprob": -0.05, "bytes": [111, 112, 101, 110]},
        {"token": " telegram", "logprob": -0.15, "bytes": [32, 116, 101, 108]},
    ],
}
DEFAULT_PLAN: dict[str, Any] = {
    "package_name": "org.telegram.messenger",
    "steps": [
        {
            "action_type": "OPEN_APP",
            "target_node_id": None,
            "payload": "telegram",
            "is_destructive": False,
        }
    ],
    "needs_confirmation": False,
    "speech_response_text": None,
}


def chat_completion(content: Any) -> dict[str, Any]:
    """A chat completion envelope around `content` (normally the plan as a JSON string)."""
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
        ],
    }


@dataclass(frozen=True)
class Answer:
    status: int = 200
    body: Any = None  # answered as JSON unless `raw` is set
    raw: bytes | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    drop: bool = False  # send the status line, then close the connection mid-answer

    @classmethod
    def json(
        cls,
        body: Any,
        status: int = 200,
        *,
        headers: Mapping[str, str] | None = None,
        delay_s: float = 0.0,
    ) -> Answer:
        return cls(status=status, body=body, headers=headers or {}, delay_s=delay_s)

    @classmethod
    def error(cls, status: int, *, headers: Mapping[str, str] | None = None) -> Answer:
        return cls.json({"error": {"message": "fake provider error"}}, status, headers=headers)

    @classmethod
    def plan(cls, plan: Any, *, delay_s: float = 0.0) -> Answer:
        """A chat completion whose content is `plan` serialised as JSON."""
        return cls.json(chat_completion(json.dumps(plan)), delay_s=delay_s)

    @classmethod
    def content(cls, content: Any) -> Answer:
        """A chat completion with exactly this `message.content` (any JSON value)."""
        return cls.json(chat_completion(content))

    @classmethod
    def malformed(cls, status: int = 200) -> Answer:
        return cls(status=status, raw=b"<html>this is not JSON")

    @classmethod
    def dropped(cls) -> Answer:
        return cls(drop=True)


@dataclass(frozen=True)
class TranscriptionRequest:
    path: str
    file: bytes | None
    filename: str | None
    file_content_type: str | None
    fields: dict[str, list[str]]
    headers: dict[str, str]

    def field(self, name: str) -> str | None:
        values = self.fields.get(name)
        return values[0] if values else None


@dataclass(frozen=True)
class ChatRequest:
    path: str
    raw: bytes
    body: Any
    headers: dict[str, str]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body["messages"])


R = TypeVar("R")


class Endpoint(Generic[R]):
    """One route's script and recording: `then(...)` queues answers, `default` answers after."""

    def __init__(self, default: Answer) -> None:
        self.default = default
        self.queue: deque[Answer] = deque()
        self.requests: list[R] = []
        self.answers: list[tuple[int, bytes]] = []  # an upstream's answers, when forwarded
        self.calls = 0

    def then(self, *answers: Answer) -> None:
        self.queue.extend(answers)

    def next_answer(self) -> Answer:
        return self.queue.popleft() if self.queue else self.default

    @property
    def last(self) -> R:
        return self.requests[-1]


class FakeOpenAI:
    def __init__(
        self, *, delay_s: float = 0.0, record: bool = True, transcribe_upstream: str | None = None
    ) -> None:
        self.transcriptions: Endpoint[TranscriptionRequest] = Endpoint(
            Answer.json(DEFAULT_TRANSCRIPTION)
        )
        self.completions: Endpoint[ChatRequest] = Endpoint(Answer.plan(DEFAULT_PLAN))
        self.delay_s = delay_s  # added to every answer (the bench's provider latency)
        self.record = record  # False: count calls only (a long bench run)
        self.transcribe_upstream = transcribe_upstream  # a real server's base URL (with /v1)
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
                answer = await self._forwarded(self.transcribe_upstream + route, body, headers)
        elif scope["method"] == "POST" and route == "/chat/completions":
            answer = self._on_completion(path, body, headers)
        else:
            answer = Answer.error(404)
        await self._answer(answer, send)

    def _on_transcription(self, path: str, body: bytes, headers: dict[str, str]) -> Answer:
        self.transcriptions.calls += 1
        if self.record:
            self.transcriptions.requests.append(_transcription_request(path, body, headers))
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

    async def _forwarded(self, url: str, body: bytes, headers: dict[str, str]) -> Answer:
        """The upstream's answer to the same request, recorded."""
        import httpx  # only the interop run forwards

        sent = {k: v for k, v in headers.items() if k in ("content-type", "authorization")}
        async with httpx.AsyncClient(timeout=120) as client:
            response = await client.post(url, content=body, headers=sent)
        self.transcriptions.answers.append((response.status_code, response.content))
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


@pytest.fixture
async def fake_openai() -> AsyncIterator[FakeOpenAI]:
    """A fake OpenAI-compatible server on a free local port: `.base_url`, `.transcriptions`
    and `.completions` (each with `then(...)`, `default`, `requests`, `calls`)."""
    fake = FakeOpenAI()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()


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


def _transcription_request(path: str, body: bytes, headers: dict[str, str]) -> TranscriptionRequest:
    fields: dict[str, list[str]] = {}
    file: bytes | None = None
    filename = file_content_type = None
    for part_headers, content in _multipart_parts(headers.get("content-type", ""), body):
        name = part_headers.get_param("name", header="content-disposition")
        if name == "file":
            file, filename = content, part_headers.get_filename()
            file_content_type = part_headers.get_content_type()
        elif isinstance(name, str):
            fields.setdefault(name, []).append(content.decode())
    return TranscriptionRequest(path, file, filename, file_content_type, fields, headers)


def _multipart_parts(
    content_type: str, body: bytes
) -> Iterator[tuple[email.message.Message, bytes]]:
    """multipart/form-data parts, byte-exact (the file is binary audio)."""
    boundary = email.message_from_string(f"Content-Type: {content_type}\n\n").get_boundary()
    if not boundary:
        return
    for section in (b"\r\n" + body).split(b"\r\n--" + boundary.encode())[1:]:
        if section.startswith(b"--"):
            break
        head, _, content = section.removeprefix(b"\r\n").partition(b"\r\n\r\n")
        yield email.message_from_bytes(head + b"\r\n\r\n"), content


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="A fake OpenAI-compatible provider.")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9100)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds before every answer")
    args = parser.parse_args(argv)
    fake = FakeOpenAI(delay_s=args.delay, record=False)
    config = uvicorn.Config(
        fake, host=args.host, port=args.port, lifespan="off", log_level="warning", access_log=False
    )
    print(f"fake OpenAI provider on http://{args.host}:{args.port}", flush=True)
    uvicorn.Server(config).run()


if __name__ == "__main__":
    main()
