"""Planning on an OpenAI-compatible server (`/chat/completions`): the request, and the plan read
back out of the chat completion.

The request is bounded and repeatable: `temperature` 0 (a server's default, 0.8 on
llama-cpp-python, made plans differ from one try to the next) and `max_tokens` sized from the
command (`plan_tokens`): a small model rambled inside the JSON grammar for hundreds of tokens
(846 on a real messaging screen, two minutes on this machine), and servers keep generating for a
client that left. How the JSON is asked for is LISAN_OPENAI_PLAN_FORMAT (`PlanFormat`): servers
differ, and one that refuses a form answers every command with an error (`errors`: a
configuration error, not an outage). With a schema, each step is one the screen allows
(`plan_schema`): a tap names a node the listing shows taking taps, typing a text field,
scrolling what scrolls; the model cannot name a node that is not there, nor type into a
button."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

from lisan.core.locale import Locale
from lisan.core.settings import PlanFormat
from lisan.providers.base import ProviderBadAnswer, Screen
from lisan.providers.prompts import SYSTEM_PROMPT, user_message
from lisan.screen.actions import SCROLL_DIRECTIONS

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
# OpenAI's strict schemas take at most 500 enum values in all (its structured-outputs limits);
# a screen listing more controls than this names its targets as any string, which the plan
# rules check as they check every id.
MAX_TARGET_IDS = 400
# A plan, as the worked examples write it, is about 50 tokens for one step and 25 for each
# step more; measured on the real 1.5B model the plans' median was 48 tokens and the longest 76
# (an indented plan: 78 and 269). 256 holds eight steps. A payload copies the transcript at
# most, and a token is at least one byte of it.
PLAN_TOKENS = 256


def plan_tokens(transcript: str, ceiling: int) -> int:
    """The request's `max_tokens`: room for the plan and a payload as long as what was said,
    never past LISAN_PLAN_MAX_TOKENS."""
    return min(ceiling, PLAN_TOKENS + len(transcript.encode()))


def plan_schema(targets: Mapping[str, list[str]]) -> dict[str, Any]:
    """PLAN_SCHEMA with each step one of the steps the screen allows (`anyOf`): a TAP of a
    node that takes a tap, a TEXT_INPUT into a text field, a SCROLL of what scrolls (or of
    the screen) in a direction, BACK or HOME, an OPEN_APP by name; each with the target and
    payload its action defines. An action with no target on the screen is not offered."""
    if sum(len(ids) for ids in targets.values()) > MAX_TARGET_IDS:
        return PLAN_SCHEMA
    variants = [
        _step(["TAP"], {"type": "string", "enum": targets["TAP"]}, _NULL)
        if targets.get("TAP") else None,
        _step(["TEXT_INPUT"], {"type": "string", "enum": targets["TEXT_INPUT"]}, _STRING)
        if targets.get("TEXT_INPUT") else None,
        _step(["SCROLL"], {"type": ["string", "null"], "enum": [*targets.get("SCROLL", []), None]},
              {"type": "string", "enum": sorted(SCROLL_DIRECTIONS)}),
        _step(["BACK", "HOME"], _NULL, _NULL),
        _step(["OPEN_APP"], _NULL, _STRING),
    ]  # fmt: skip
    steps = {**PLAN_SCHEMA["properties"]["steps"], "items": {"anyOf": [v for v in variants if v]}}
    return {**PLAN_SCHEMA, "properties": {**PLAN_SCHEMA["properties"], "steps": steps}}


_NULL = {"type": "null"}
_STRING = {"type": "string"}


def _step(actions: list[str], target: dict[str, Any], payload: dict[str, Any]) -> dict[str, Any]:
    step: dict[str, Any] = PLAN_SCHEMA["properties"]["steps"]["items"]
    properties = {
        **step["properties"],
        "action_type": {"type": "string", "enum": actions},
        "target_node_id": target,
        "payload": payload,
    }
    return {**step, "properties": properties}


def _response_format(form: PlanFormat, schema: dict[str, Any]) -> dict[str, Any] | None:
    if form is PlanFormat.JSON_SCHEMA:
        return {
            "type": "json_schema",
            "json_schema": {"name": "action_plan", "strict": True, "schema": schema},
        }
    if form is PlanFormat.JSON_OBJECT:
        return {"type": "json_object", "schema": schema}
    return None


_SCHEMA_IN_PROMPT = (
    "\n\nAnswer with one JSON object and nothing else, matching this JSON schema:\n"
    + orjson.dumps(PLAN_SCHEMA).decode()
)


def plan_request(
    model: str,
    transcript: str,
    screen: Screen | None,
    language: Locale,
    *,
    form: PlanFormat = PlanFormat.JSON_SCHEMA,
    max_tokens: int = 1536,
) -> bytes:
    """The chat completion request, as JSON. The user's apps are not in it: the remote planner
    is not told which apps the user has. `max_tokens` is the ceiling (LISAN_PLAN_MAX_TOKENS)."""
    system = SYSTEM_PROMPT + (_SCHEMA_IN_PROMPT if form is PlanFormat.PROMPT else "")
    message, listing = user_message(transcript, screen, language)
    body: dict[str, Any] = {
        "model": model,
        "messages": [
            {"role": "system", "content": system},
            {"role": "user", "content": message},
        ],
        "temperature": 0,
        "max_tokens": plan_tokens(transcript, max_tokens),
    }
    response_format = _response_format(form, plan_schema(listing.targets))
    if response_format is not None:
        body["response_format"] = response_format
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
        return orjson.loads(_unfenced(content))
    except orjson.JSONDecodeError:
        if _finish_reason(answer) == "length":
            raise ProviderBadAnswer("plan: cut at LISAN_PLAN_MAX_TOKENS") from None
        raise ProviderBadAnswer("plan: the content is not JSON") from None


def _unfenced(content: str) -> str:
    """The JSON of an answer a model wrote as a fenced block (as small models do when the
    schema is only in the prompt): whitespace, a fence (```` ``` ```` or ```` ```json ````),
    whitespace holding a line break, the JSON, whitespace holding a line break, a fence, and
    whitespace. The JSON runs from the opening whitespace's last line break (short of the
    closing one) to the closing whitespace's last line break. Anything else is the JSON as
    it stands.

    Read by scanning, never by a backtracking pattern: the answer is the planner's, and a
    fence over thousands of blank lines made one pattern try every pair of line breaks."""
    body = content.lstrip()
    if not body.startswith(_FENCE):
        return content
    opened = len(_FENCE) + (len(_JSON) if body.startswith(_JSON, len(_FENCE)) else 0)
    opening_ends = len(body) - len(body[opened:].lstrip())
    closed = body.rstrip()
    if not closed.endswith(_FENCE):
        return content
    closing = len(closed) - len(_FENCE)
    closing_starts = len(closed[:closing].rstrip())
    json_ends = body.rfind("\n", closing_starts, closing)
    if json_ends == -1:
        return content
    json_starts = body.rfind("\n", opened, min(opening_ends, json_ends)) + 1
    if json_starts == 0:
        return content
    return body[json_starts:json_ends]


_FENCE = "```"
_JSON = "json"


def _finish_reason(answer: Any) -> Any:
    try:
        return answer["choices"][0].get("finish_reason")
    except (KeyError, IndexError, TypeError, AttributeError):
        return None
