"""A provider call as a command makes it: counted by outcome and timed, and its failure turned
into the client's 502, 503 or 504, never its detail. The command's stage around it is timed by
the step that makes it (`stages.timed`)."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable
from typing import TypeVar

from lisan.core import metrics
from lisan.core.errors import BadGateway, GatewayTimeout, LisanError, ServiceUnavailable
from lisan.providers.base import (
    Outcome,
    ProviderCall,
    ProviderError,
    ProviderRefusedRequest,
    ProviderTimeout,
    ProviderUnavailable,
)

# Logged under the pipeline's name, the one its other records carry.
log = logging.getLogger("lisan.commands.pipeline")

T = TypeVar("T")


class ProviderRefused(BadGateway):
    """The client's 502 for a request the provider refused (`ProviderRefusedRequest`): answered
    as any 502, but counted as what it is, a configuration error
    (`commands.service.Failure.CONFIG_ERROR`), never as an answer the service could not read."""

    default_message = "the voice provider refused the service's request"


async def call_provider(call: ProviderCall, awaitable: Awaitable[T]) -> T:
    """A provider call (`call`, the provider metrics' label), counted by outcome and timed; its
    failure becomes the client's 502, 503 or 504, never its detail. A call cut short by anything
    else (the client went away) is timed, not counted: it says nothing of the provider."""
    started = time.perf_counter()
    outcome: str | None = None
    try:
        result = await awaitable
        outcome = Outcome.OK
        return result
    except ProviderError as exc:
        outcome = exc.kind
        raise _client_error(exc) from None
    finally:
        elapsed = time.perf_counter() - started
        if outcome is not None:
            bounded = metrics.PROVIDER_OUTCOMES.bounded(outcome)
            metrics.labelled(metrics.PROVIDER_CALL_TOTAL, call, bounded).inc()
        metrics.labelled(metrics.PROVIDER_DURATION, call).observe(elapsed)


def _client_error(failure: ProviderError) -> LisanError:
    """What the client is answered for a provider's failure."""
    if isinstance(failure, ProviderTimeout):
        return GatewayTimeout()
    if isinstance(failure, ProviderUnavailable):
        log.warning(
            "voice provider unavailable",
            extra={"reason": type(failure).__name__, "kind": failure.kind},
        )
        message = failure.public_message or "the voice provider is unavailable; try again shortly"
        return ServiceUnavailable(message, headers={"Retry-After": str(failure.retry_after_s)})
    if isinstance(failure, ProviderRefusedRequest):
        log.error(
            "the voice provider refuses the service's request: a configuration error (the "
            "structured-output form, LISAN_OPENAI_PLAN_FORMAT, or a model name)",
            extra={"kind": failure.kind},
        )
        return ProviderRefused()
    return BadGateway()
