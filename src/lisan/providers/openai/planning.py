"""Planning on an OpenAI-compatible server (`/chat/completions`): the request, which asks for
the plan under a strict JSON schema, and the plan read back out of the chat completion."""

from __future__ import annotations

from typing import Any

import orjson

from lisan.core.locale import Locale
from lisan.providers.base import ProviderBadAnswer, Screen
from lisan.providers.prompts import SYSTEM_PROMPT, user_message

_NULLABLE_STRING = {"type": ["string", "null"]}
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "package_name": {"type": "string"},
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "action_type": {
                        "type": "string",
                        "enum": ["TAP", "SCROLL", "TEXT_INPUT", "BACK", "HOME", "OPEN_APP"],
                    },
                    "target_node_id": _NULLABLE_STRING,
                    "payload": _NULLABLE_STRING,
                    "is_destructive": {"type": "boolean"},
                },
                "required": ["action_type", "target_node_id", "payload", "is_destructive"],
                "additionalProperties": False,
            },
        },
        "needs_confirmation": {"type": "boolean"},
        "speech_response_text": _NULLABLE_STRING,
    },
    "required": ["package_name", "steps", "needs_confirmation", "speech_response_text"],
    "additionalProperties": False,
}
_RESPONSE_FORMAT = {
    "type": "json_schema",
    "json_schema": {"name": "action_plan", "strict": True, "schema": PLAN_SCHEMA},
}


def plan_request(model: str, transcript: str, screen: Screen | None, language: Locale) -> bytes:
    """The chat completion request, as JSON. The user's apps are not in it: the remote planner
    is not told which apps the user has."""
    body = {
        "model": model,
        "messages": [
            {"role": "system", "content": SYSTEM_PROMPT},
            {
                "role": "user",
                "content": user_message(transcript, screen, language),
            },
        ],
        "response_format": _RESPONSE_FORMAT,
    }
    return orjson.dumps(body)  # httpx's json= would use the slower stdlib json


def plan_from(answer: Any) -> Any:
    """The plan inside a chat completion: whatever `choices[0].message.content` parses to."""
    try:
        content = answer["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        raise ProviderBadAnswer("plan: the answer has no choices[0].message.content") from None
    if not isinstance(content, str):
        raise ProviderBadAnswer("plan: choices[0].message.content is not a string")
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        raise ProviderBadAnswer("plan: the content is not JSON") from None
