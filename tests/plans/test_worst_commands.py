"""No answer may stall a process: whatever a remote planner answers (up to 256 KiB), on any
screen (up to 64 KB) and with any transcript the service plans (up to 1,000 characters), what
the service does once the planner answered (the plan read out of the answer, the plan rules,
the naming check) costs under 50 ms of CPU, a budget scaled to how fast this machine runs an
ordinary command of the same size (`tests.fixtures.adversarial.cpu_bound_ms`). The shapes are
those that make a parser backtrack or a check compare every pair: long unbroken words,
thousands of blank lines, many near-identical words, deep nesting, many fences."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings

from tests.fixtures.adversarial import (
    ANSWER_CHARS,
    ANSWERS,
    SCREEN_CHARS,
    SCREENS,
    TRANSCRIPT_CHARS,
    TRANSCRIPTS,
    Command,
    adversarial_commands,
    benign_cpu_ms,
    checked,
    cpu_bound_ms,
    least_cpu_ms,
)


@pytest.fixture(scope="module")
def bound_ms() -> float:
    return cpu_bound_ms(benign_cpu_ms())


def cost_ms(command: Command) -> float:
    def prepare(salt: int) -> Callable[[], object]:
        inputs = command.inputs(salt)
        return lambda: checked(*inputs)

    return least_cpu_ms(prepare)


@pytest.mark.parametrize("heard_shape", TRANSCRIPTS)
@pytest.mark.parametrize("screen_shape", sorted(SCREENS))
def test_a_plan_on_any_screen_shape_at_the_bound_is_checked_within_the_budget(
    screen_shape: str, heard_shape: str, bound_ms: float
) -> None:
    command = Command("a plan", 0, screen_shape, SCREEN_CHARS, heard_shape, TRANSCRIPT_CHARS)
    assert cost_ms(command) < bound_ms


@pytest.mark.parametrize("answer_shape", sorted(ANSWERS))
def test_any_answer_shape_at_the_bound_is_read_within_the_budget(
    answer_shape: str, bound_ms: float
) -> None:
    command = Command(
        answer_shape, ANSWER_CHARS, "blank lines", SCREEN_CHARS, TRANSCRIPTS[0], TRANSCRIPT_CHARS
    )
    assert cost_ms(command) < bound_ms


@settings(
    max_examples=15,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(command=adversarial_commands())
def test_any_command_of_adversarial_shapes_is_checked_within_the_budget(
    command: Command, bound_ms: float
) -> None:
    assert cost_ms(command) < bound_ms
