"""Liveness and readiness: what an orchestrator asks before it sends traffic."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime

from lisan.db.resources import Resources
from lisan.probes.schemas import ComponentState, Health, Readiness

SERVICE_NAME = "lisan"
# Redis is reported, never required: a frozen one must not hold /ready near an orchestrator's
# usual 1 s probe timeout (it waited the shared client's 1 s, and answered after 1.62 s on a
# loaded machine), which would take a healthy process out of service for a cache.
REDIS_PING_S = 0.5

# How long one readiness answer is reused: /ready needs no credentials, so without this every
# call would be free database and Redis work for whoever sends it.
READY_CACHE_S = 1.0


def health() -> Health:
    return Health(timestamp=datetime.now(UTC), service=SERVICE_NAME)


async def _database_state(resources: Resources) -> ComponentState:
    if resources.schema_ready and await resources.database.is_reachable():
        return "ok"
    return "unavailable"


async def _redis_state(resources: Resources) -> ComponentState:
    if resources.redis is None:
        return "unavailable"
    try:
        async with asyncio.timeout(REDIS_PING_S):
            await resources.redis.ping()
        return "ok"
    except Exception:
        return "unavailable"


async def readiness(resources: Resources) -> Readiness:
    """Ready when the database answers; Redis is reported but never required."""
    database, redis = await asyncio.gather(_database_state(resources), _redis_state(resources))
    return Readiness(
        status="ready" if database == "ok" else "unavailable", database=database, redis=redis
    )


class ReadinessProbe:
    """`readiness`, at most once per READY_CACHE_S however many ask: callers that come while a
    check runs share it, and its answer serves everyone until it is READY_CACHE_S old."""

    def __init__(self, resources: Resources) -> None:
        self._resources = resources
        self._answer: asyncio.Task[Readiness] | None = None
        self._checked_at = -float("inf")

    async def check(self) -> Readiness:
        now = time.monotonic()
        if self._answer is None or now - self._checked_at >= READY_CACHE_S:
            self._answer = asyncio.create_task(readiness(self._resources))
            self._checked_at = now
        # shield: one caller going away must not cancel the check the others wait on.
        return await asyncio.shield(self._answer)
