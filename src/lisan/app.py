"""The ASGI application: routers of every domain behind the request edge."""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from lisan import CONTRACT_VERSION
from lisan.admin.endpoints import router as admin_router
from lisan.auth.endpoints import router as auth_router
from lisan.billing.endpoints import router as billing_router
from lisan.commands.endpoints import router as commands_router
from lisan.consent.endpoints import router as consent_router
from lisan.core.http import JsonResponse
from lisan.core.logging import configure_logging
from lisan.core.settings import Settings, get_settings
from lisan.db.database_trouble import DatabaseTrouble
from lisan.db.migrate import upgrade_to_head
from lisan.db.resources import Resources
from lisan.deletion.endpoints import router as deletion_router
from lisan.deps import ServedApp, Services
from lisan.grants.endpoints import router as grants_router
from lisan.phrases.endpoints import router as phrases_router
from lisan.probes.endpoints import router as probes_router
from lisan.probes.service import ReadinessProbe
from lisan.providers import create_breakers, create_provider
from lisan.providers.http import provider_client
from lisan.server.edge import BodyTimeouts, RequestEdge
from lisan.server.error_handlers import install_error_handlers
from lisan.telemetry.endpoints import router as telemetry_router
from lisan.telemetry.writer import TelemetryWriter
from lisan.users.endpoints import router as users_router
from lisan.vocabulary.endpoints import router as vocabulary_router
from lisan.worker import Worker

log = logging.getLogger(__name__)

# Busiest first: a request is matched against the routes in this order, one path pattern after
# another, so every route ahead of a busy one is a pattern each of its requests tries first
# (see docs/benchmarks.md, "Measured choices"). No two routers share a path, so the order
# changes nothing else.
ROUTERS = (
    commands_router,
    users_router,
    vocabulary_router,
    grants_router,
    telemetry_router,
    billing_router,
    consent_router,
    auth_router,
    phrases_router,
    deletion_router,
    probes_router,
    admin_router,
)

MIGRATION_RETRY_S = (1.0, 30.0)  # first and longest pause between tries
GC_YOUNG_THRESHOLD = 10_000  # Python's default is 700


def build_fastapi(settings: Settings, *, migrate_in_background: bool = False) -> ServedApp:
    # Every route, flat (a 405 names the methods of every route on its path).
    served_routes = [route for router in ROUTERS for route in router.routes]
    database_trouble = DatabaseTrouble()

    @asynccontextmanager
    async def lifespan(app: ServedApp) -> AsyncIterator[None]:
        resources = Resources.open(settings)
        readiness = ReadinessProbe(resources)
        telemetry = TelemetryWriter(resources.database)
        telemetry.start()
        http = provider_client()  # one per process, shared by every provider call
        breakers = create_breakers(settings)
        await breakers.start()
        provider = create_provider(settings, http, breakers)
        app.services = Services(
            resources=resources,
            provider=provider,
            telemetry=telemetry,
            readiness=readiness,
            database_trouble=database_trouble,
            served_routes=served_routes,
        )
        if migrate_in_background:
            resources.schema_ready = False
            task = asyncio.create_task(_migrate_until_done(resources))
            resources.background.add(task)
            task.add_done_callback(resources.background.discard)
        if settings.run_worker:  # deletion jobs and purges, in this process too
            worker = Worker(settings, resources.database).run_forever()
            worker_task = asyncio.create_task(worker)
            resources.background.add(worker_task)
            worker_task.add_done_callback(resources.background.discard)
        try:
            yield
        finally:
            await provider.aclose()
            await breakers.aclose()
            await http.aclose()
            # Flushes what is buffered (within its bound) before the engine goes.
            await telemetry.close(settings.telemetry_flush_timeout_s)
            await resources.close()

    app = ServedApp(
        title="Lisan",
        version=CONTRACT_VERSION,
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
        default_response_class=JsonResponse,
        lifespan=lifespan,
        # No OpenTelemetry here (logs are our own); FastAPI would probe for it on every request.
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    install_error_handlers(app, served_routes=served_routes, database_trouble=database_trouble)
    for router in ROUTERS:
        app.include_router(router)
    return app


class LisanApp(RequestEdge):
    """The application as served: the FastAPI app wrapped by the request edge."""

    def __init__(self, fastapi_app: ServedApp, body_timeouts: BodyTimeouts | None = None) -> None:
        super().__init__(fastapi_app, body_timeouts=body_timeouts)
        self.fastapi = fastapi_app

    @property
    def services(self) -> Services:
        """The app's services, once it has started."""
        return self.fastapi.services


def create_app(
    settings: Settings | None = None, *, migrate_in_background: bool = False
) -> LisanApp:
    settings = settings or get_settings()
    return LisanApp(
        build_fastapi(settings, migrate_in_background=migrate_in_background),
        BodyTimeouts(settings.body_idle_timeout_s, settings.body_timeout_s),
    )


def serve_app() -> LisanApp:
    """uvicorn's factory for `lisan serve`, called once in every server process."""
    settings = get_settings()
    configure_logging(settings)
    return _collect_less(create_app(settings))


def _collect_less(app: LisanApp) -> LisanApp:
    """Everything imported so far lives as long as the process: move it out of the collector's
    sight, so a full collection under load walks only what requests made. Collections of the
    young generation also come less often: a command allocates thousands of objects, and
    nearly all of them die with it."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    return app


def serve_app_migrating() -> LisanApp:
    """For `serve` when the database was down at start: serve unready and migrate once it is up."""
    settings = get_settings()
    configure_logging(settings)
    return _collect_less(create_app(settings, migrate_in_background=True))


async def _migrate_until_done(resources: Resources) -> None:
    pause, longest = MIGRATION_RETRY_S
    while True:
        try:
            await resources.blocking.run(upgrade_to_head, resources.settings.database_url)
        except Exception as exc:
            log.warning(
                "migrations pending: database unavailable", extra={"error": type(exc).__name__}
            )
            await asyncio.sleep(pause)
            pause = min(pause * 2, longest)
        else:
            resources.schema_ready = True
            log.info("migrations applied")
            return
