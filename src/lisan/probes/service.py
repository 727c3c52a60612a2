"""Liveness and readiness: what an orchestrator asks before it sends traffic."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from lisan.core.database import database_is_reachable
from lisan.core.resources import REDIS_TIMEOUT_S, Resources
from lisan.probes.schemas import ComponentState, Health, Readiness

SERVICE_NAME = "lisan"


def health() -> Health:
    return Health(timestamp=datetime.now(UTC), service=SERVICE_NAME)


async def _database_state(resources: Resources) -> ComponentState:
    if resources.schema_ready and await database_is_reachable(resources.engine):
        return "ok"
    return "unavailable"


async def _redis_state(resources: Resources) -> ComponentState:
    if resources.redis is None:
        return "unavailable"
    try:
        async with asyncio.timeout(REDIS_TIMEOUT_S):
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
