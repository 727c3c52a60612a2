"""Reading a provider's error answer costs time linear in its body, whatever its shape: the body
is parsed once, its parts are cut before anything else reads them, and no pattern backtracks.
Each shape is read at growing sizes up to 1 MB (four times the largest answer the provider reads)
and every read stays within a CPU budget far below what one quadratic read of it costs."""

from __future__ import annotations

import time
from collections.abc import Callable

import orjson
import pytest

from lisan.providers.openai.errors import error_excerpt, refuses_the_request
from lisan.providers.openai.withholding import Sent

SIZES = (16_000, 64_000, 256_000, 1_000_000)
# CPU seconds (not wall time: other processes share the machine) for one read of 1 MB; a parse
# of the body costs a small part of it, a quadratic read of the smallest size several times it.
BUDGET_S = 0.5

SHAPES: dict[str, Callable[[int], str]] = {
    "one unbroken word": lambda n: "a" * n,
    "one unbroken word of letters and digits": lambda n: "a1" * (n // 2),
    "blank lines": lambda n: "model" + "\n" * n + "unknown",
    "runs of spaces and controls": lambda n: " \t\x01" * (n // 3),
    "near-identical words": lambda n: " ".join(f"abcdefgh{i % 10}" for i in range(n // 10)),
    "key-shaped runs one short": lambda n: ("a1" * 15 + "b ") * (n // 32),
    "sk- over and over": lambda n: "sk-" * (n // 3),
    "Bearer over and over": lambda n: "Bearer " * (n // 7),
    "percent escapes": lambda n: "%E1%8A%A0" * (n // 9),
    "broken percent escapes": lambda n: "%E" * (n // 2),
    "json escapes": lambda n: "\\u12a0" * (n // 6),
    "html entities": lambda n: "&#x12A0;" * (n // 8),
    "ampersands": lambda n: "&" * n,
    "entity names without end": lambda n: "&" + "a" * n,
    "model then many words": lambda n: "model " + "x " * (n // 2),
}
# The user's words a read looks for: a full vocabulary, and a 64 KB screen with its transcript.
VOCABULARY = Sent(terms=[f"ተርም{i} name{i}" for i in range(500)])
SCREEN = Sent(
    texts=(
        "call abebe now",
        "\n".join(f'[n{i}] Button "Label {i % 97} word"' for i in range(3000))[:65_536],
    )
)


def bodies(message: str) -> dict[str, bytes]:
    """The ways an error answer carries a text: an OpenAI error with its fields, FastAPI's
    validation errors, and a body that is not JSON."""
    return {
        "openai": orjson.dumps(
            {"error": {"message": message, "type": message, "code": message, "param": message}}
        ),
        "fastapi": orjson.dumps(
            {"detail": [{"type": message, "loc": [message, *range(1000)], "msg": message}] * 4}
        ),
        "text": message.encode(),
    }


def cpu_seconds(body: bytes, sent: Sent) -> float:
    started = time.process_time()
    error_excerpt(body, "sk-test-not-a-real-key-0123456789", sent)
    refuses_the_request(body)
    return time.process_time() - started


@pytest.mark.parametrize("shape", SHAPES)
def test_an_error_answer_is_read_in_time_linear_in_its_size(shape: str) -> None:
    for size in SIZES:
        for form, body in bodies(SHAPES[shape](size)).items():
            for sent in (VOCABULARY, SCREEN):
                spent = cpu_seconds(body, sent)
                assert spent < BUDGET_S, f"{form} of {size} characters: {spent:.2f} s"
