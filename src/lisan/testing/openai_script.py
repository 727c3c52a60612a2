"""What the fake OpenAI-compatible provider answers and what it records: the answers a test
scripts (`Answer`, queued per endpoint on an `Endpoint`), the requests as received (a
transcription's multipart form read byte-exact, a chat completion's JSON), and the defaults
it answers when nothing is queued: an instruction the rules do not plan, and a plan that opens
Telegram."""

from __future__ import annotations

import email
import email.message
import json
from collections import deque
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

# An instruction in people's words, which the rules do not plan: the planner is asked (a test of
# what the rules plan first says its own transcript).
DEFAULT_TRANSCRIPTION: dict[str, Any] = {
    "text": "show me my telegram chats",
    "logprobs": [
        {"token": "show me my", "logprob": -0.05, "bytes": [115, 104, 111, 119]},
        {"token": " telegram chats", "logprob": -0.15, "bytes": [32, 116, 101, 108]},
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
        # An upstream's answers, when forwarded, by the index of the request they answer: a
        # slow one arrives after later requests, and after the client gave up on it.
        self.answers: dict[int, tuple[int, bytes]] = {}
        self.calls = 0

    def then(self, *answers: Answer) -> None:
        self.queue.extend(answers)

    def next_answer(self) -> Answer:
        return self.queue.popleft() if self.queue else self.default

    @property
    def last(self) -> R:
        return self.requests[-1]


def transcription_request(path: str, body: bytes, headers: dict[str, str]) -> TranscriptionRequest:
    fields: dict[str, list[str]] = {}
    file: bytes | None = None
    filename = file_content_type = None
    for part_headers, content in multipart_parts(headers.get("content-type", ""), body):
        name = part_headers.get_param("name", header="content-disposition")
        if name == "file":
            file, filename = content, part_headers.get_filename()
            file_content_type = part_headers.get_content_type()
        elif isinstance(name, str):
            fields.setdefault(name, []).append(content.decode())
    return TranscriptionRequest(path, file, filename, file_content_type, fields, headers)


def multipart_parts(
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
