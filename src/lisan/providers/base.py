"""What the command pipeline needs from a speech/LLM provider, whichever one it is: its two
calls (`ProviderCall`), what they take and answer, and how they fail.

The calls' names, their outcomes and the planner's declines are declared to the metrics here,
at import (the `call` and `outcome` labels; the `reason` label of `lisan_commands`), so
`core.metrics` names none of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from lisan.core import metrics
from lisan.core.locale import Locale

# The longest recording a command carries (the contract's duration_ms bound), so the longest a
# provider is ever handed: a transcriber's segment times are read within it.
MAX_DURATION_MS = 15_000


class ProviderCall(StrEnum):
    """A provider's calls, by the name its metrics, its breaker and its logs give it."""

    TRANSCRIBE = "transcribe"
    PLAN = "plan"


class Decline(StrEnum):
    """Why a planner answers with no steps (its plan's `reason`): it could not, or would not,
    do what was asked. The offline planner says which; a remote one may not."""

    NOTHING_TO_DO = "nothing_to_do"
    TARGET_NOT_ON_SCREEN = "target_not_on_screen"
    APP_NOT_GRANTED = "app_not_granted"
    DICTATION_UNSUPPORTED = "dictation_unsupported"


class Outcome(StrEnum):
    """How a provider call ended: `ok`, or the `kind` of its `ProviderError`."""

    OK = "ok"
    TIMEOUT = "timeout"  # ProviderTimeout
    HTTP_5XX = "5xx"  # the provider's server failed (ProviderUnavailable)
    HTTP_4XX = "4xx"  # the provider refused what we sent (ProviderBadAnswer)
    HTTP_429 = "429"  # the provider rate-limits us (ProviderUnavailable)
    CONNECTION = "connection"  # no connection to the provider (ProviderUnavailable)
    MALFORMED = "malformed"  # ProviderBadAnswer
    CIRCUIT_OPEN = "circuit_open"  # the breaker let no call out (ProviderUnavailable)
    BUSY = "busy"  # ServiceAtCapacity
    UNAVAILABLE = "unavailable"  # any other ProviderUnavailable
    CONFIG_ERROR = "config_error"  # ProviderRefusedRequest


metrics.PROVIDER_CALLS.declare(ProviderCall)
metrics.PROVIDER_OUTCOMES.declare(Outcome)
metrics.COMMAND_REASONS.declare(Decline)


@dataclass(frozen=True, slots=True)
class Transcript:
    """What a transcriber heard. Beyond the text and its score, what a Whisper-style server
    reports (each None when it does not): the language it heard (an ISO 639-1 code, or its own
    word for one it does not map), how likely it found no speech at all, and the transcript's
    gzip compression ratio (a hallucinated loop compresses far better than speech)."""

    text: str
    confidence: float | None  # None: the transcriber gave no score
    language: str | None = None
    no_speech_prob: float | None = None
    compression_ratio: float | None = None


@dataclass(frozen=True, slots=True)
class Screen:
    """The phone's screen as a provider may see it: the app in front and its reduced view tree.
    A remote provider only ever gets a granted app's screen: for any other it gets None, and
    learns only that the screen is hidden (the user never let that app's content go to a
    provider). A provider that runs on this machine (`keeps_screens_local`) also gets an
    ungranted app's screen, with `granted` False: nothing leaves the machine, and knowing the
    labels lets it hear "tap send" on that screen and answer that the app is not granted,
    rather than ask the user to repeat a command it could not have understood."""

    current_package: str
    view_tree: str
    granted: bool = True


@dataclass(frozen=True, slots=True)
class Expected:
    """What the user may name in a command, for a transcriber that listens for it: the user's
    vocabulary terms, the granted screen (None when hidden) and the granted apps. A remote
    transcriber gets the terms only (its prompt); the screen and the apps stay on this machine
    for the offline one."""

    vocabulary: Sequence[str]
    screen: Screen | None
    apps: Sequence[str]


class ProviderError(Exception):
    """A provider call failed; the subclass says how the client is answered. The message is
    for logs only: clients never see provider detail. `kind` names the failure for metrics
    (`lisan_provider_calls_total{outcome}`) and logs."""

    kind: Outcome = Outcome.UNAVAILABLE

    def __init__(self, message: str, *, kind: Outcome | None = None) -> None:
        super().__init__(message)
        if kind is not None:
            self.kind = kind


class ProviderTimeout(ProviderError):
    """No answer within LISAN_TRANSCRIBE_TIMEOUT_S / LISAN_PLAN_TIMEOUT_S: 504."""

    kind = Outcome.TIMEOUT


class ProviderUnavailable(ProviderError):
    """5xx, connection failure, rate limited by the provider, or circuit open: 503.
    `public_message`, when set, is safe for the client (our own words, no provider detail)."""

    def __init__(
        self,
        message: str,
        *,
        retry_after_s: int = 5,
        public_message: str | None = None,
        kind: Outcome | None = None,
    ) -> None:
        super().__init__(message, kind=kind)
        self.retry_after_s = retry_after_s
        self.public_message = public_message


class ServiceAtCapacity(ProviderUnavailable):
    """No connection free in our own pool to the provider in time: 503, and the provider's
    circuit breaker does not count it (the provider did nothing wrong)."""

    kind = Outcome.BUSY


class ProviderBadAnswer(ProviderError):
    """An answer in a shape the service does not understand (or a 4xx: `kind` "4xx"): 502."""

    kind = Outcome.MALFORMED


class ProviderRefusedRequest(ProviderError):
    """The provider refused the request itself, its structured-output form or its model: our
    configuration, not an outage. 502; counted `config_error`; the breaker takes it for an
    answer (the provider is up)."""

    kind = Outcome.CONFIG_ERROR


class VoiceProvider(Protocol):
    # True for a provider that runs on this machine: an ungranted app's screen may reach it
    # (`Screen.granted` False), since it never leaves the machine.
    keeps_screens_local: bool

    async def transcribe(self, pcm: bytes, language: Locale, expected: Expected) -> Transcript:
        """16 kHz mono 16-bit PCM to text. `expected.vocabulary` biases recognition; it goes
        nowhere else (never to the planner, never to a log)."""
        ...

    async def plan(
        self, transcript: str, screen: Screen | None, language: Locale, apps: Sequence[str]
    ) -> Any:
        """The planner's raw plan: whatever JSON it returned (the pipeline validates it). The
        view tree is untrusted data, never instructions; `screen` is None when it is hidden.
        `apps` are the granted packages, for a planner on this machine: a remote planner is
        not sent the list of the user's apps."""
        ...

    async def aclose(self) -> None: ...
