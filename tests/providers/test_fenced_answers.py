"""A plan a model wrote as a Markdown code block is read out of its fence: whitespace, a fence
(```` ``` ```` or ```` ```json ````), whitespace holding a line break, the JSON, whitespace
holding a line break, a fence, whitespace. Anything else is read as it stands. The planner's
answer is untrusted, so it is read in time linear in its size: a fence over thousands of blank
lines costs what any answer of its size costs."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lisan.providers.base import ProviderBadAnswer
from lisan.providers.openai.planning import plan_from
from lisan.testing.openai_script import chat_completion
from tests.fixtures.adversarial import ANSWER_CHARS, fenced_blank_lines, least_cpu_ms, many_fences

# The rule as a pattern: exact, but it backtracks (cubic over blank lines), so it only ever
# reads the small answers below.
FENCED = re.compile(r"\A\s*```(?:json)?\s*\n(.*)\n\s*```\s*\Z", re.DOTALL)
PIECES = ["```", "json", "js", "`", "\n", "\n\n", " ", "\t", "\r", "\u00a0", "\u2028", "{}", "[1]"]
CPU_BOUND_MS = 50.0


def read(content: str) -> object:
    try:
        return plan_from(chat_completion(content))
    except ProviderBadAnswer as bad:
        return str(bad)


def read_by_the_pattern(content: str) -> object:
    fenced = FENCED.match(content)
    return read(fenced.group(1) if fenced else content)


@pytest.mark.parametrize(
    ("content", "plan"),
    [
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('  \n```json  \n\n  {"a": 1}\n\n```\n', {"a": 1}),
        ('{"a": 1}', {"a": 1}),
    ],
)
def test_a_fenced_plan_is_read_from_inside_its_fence(content: str, plan: object) -> None:
    assert read(content) == plan


@pytest.mark.parametrize(
    "content",
    ['```js\n{"a": 1}\n```', '```json {"a": 1}```', '```json\n{"a": 1}\n', "```\n```"],
)
def test_an_answer_not_fenced_as_a_plan_is_not_json(content: str) -> None:
    assert read(content) == "plan: the content is not JSON"


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
def test_a_fence_is_read_as_the_pattern_reads_it(content: str) -> None:
    assert read(content) == read_by_the_pattern(content)


@pytest.mark.parametrize("chars", [2_000, ANSWER_CHARS], ids=["2,000 lines", "the bound"])
@pytest.mark.parametrize(
    "answer", [fenced_blank_lines, many_fences], ids=["fence over blank lines", "many fences"]
)
def test_a_fence_over_blank_lines_up_to_the_largest_answer_is_read_in_linear_time(
    answer: Callable[[int, int], str], chars: int
) -> None:
    def prepare(salt: int) -> Callable[[], object]:
        content = answer(chars, salt)
        return lambda: read(content)

    assert least_cpu_ms(prepare) < CPU_BOUND_MS
