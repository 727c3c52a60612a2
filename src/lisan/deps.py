"""What an endpoint receives, by name in its signature: the app's services, its caller, its body.

The app holds its services as one typed object, `Services`, set once when the app starts
(lisan.app); Starlette's `app.state` would take any attribute and type none. Each dependency
below hands an endpoint one part of it, and its `Annotated` alias is what the endpoint names.

A body is parsed here, strictly, by the body's own model (`JsonBody[Model]`): FastAPI never
parses a body itself, whose errors and schema would differ from the contract's. Dependencies run
in the order a signature names them, so a signature lists the caller's checks (who, how often)
before the body, as the answers' order of precedence asks (401 and 429 before a 400).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

from fastapi import Depends, FastAPI, Path, Request
from pydantic import BaseModel
from starlette.routing import BaseRoute

from lisan.admin import service as admin
from lisan.auth.service import Principal, Purpose, authenticate, session_for_token
from lisan.commands import idempotency
from lisan.core.errors import NotAuthenticated
from lisan.core.ratelimit import client_ip
from lisan.core.schemas import parse_json_body
from lisan.core.settings import Settings
from lisan.db.database_trouble import DatabaseTrouble
from lisan.db.handle import Db
from lisan.db.resources import Resources
from lisan.probes.service import ReadinessProbe
from lisan.providers.base import VoiceProvider
from lisan.telemetry.writer import TelemetryWriter
from lisan.vocabulary.service import parse_term_id

ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True, eq=False, slots=True)
class Services:
    """Everything the app holds for its lifetime, set once at start-up."""

    resources: Resources
    provider: VoiceProvider
    telemetry: TelemetryWriter  # events are written behind the request, in batches
    readiness: ReadinessProbe
    database_trouble: DatabaseTrouble  # one record per app (tests make many apps)
    served_routes: Sequence[BaseRoute]  # every route, flat: FastAPI nests included routers


class ServedApp(FastAPI):
    """The FastAPI app, with its services as one typed attribute (set by its lifespan)."""

    services: Services


def services_of(request: Request) -> Services:
    """The app's services, as every dependency below reads them (Starlette types `request.app`
    as Any: this is where it gets its type)."""
    services: Services = request.app.services
    return services


# The app's services. Every dependency is async: FastAPI runs a sync one in a worker thread.


async def get_services(request: Request) -> Services:
    return services_of(request)


async def get_resources(request: Request) -> Resources:
    return services_of(request).resources


async def get_settings(request: Request) -> Settings:
    return services_of(request).resources.settings


async def get_unit_of_work(request: Request) -> AsyncIterator[Db]:
    """The request's unit of work: services write in it; it is committed here, once, at the
    end."""
    async with services_of(request).resources.database.transaction() as db:
        yield db


async def get_read_unit_of_work(request: Request) -> AsyncIterator[Db]:
    """A unit of work for a route that only reads: on SQLite it never takes the write lock."""
    async with services_of(request).resources.database.read_transaction() as db:
        yield db


async def get_reads(request: Request) -> Db:
    """Single-statement reads outside a unit of work (`db.lookups`)."""
    return services_of(request).resources.database.reads


async def get_provider(request: Request) -> VoiceProvider:
    return services_of(request).provider


async def get_telemetry(request: Request) -> TelemetryWriter:
    return services_of(request).telemetry


async def get_readiness(request: Request) -> ReadinessProbe:
    return services_of(request).readiness


async def request_id(request: Request) -> str:
    rid: str = request.state.request_id
    return rid


AppServices = Annotated[Services, Depends(get_services)]
AppResources = Annotated[Resources, Depends(get_resources)]
AppSettings = Annotated[Settings, Depends(get_settings)]
# scope="function": commit before the response is sent, so a failed commit is an error response.
UnitOfWork = Annotated[Db, Depends(get_unit_of_work, scope="function")]
ReadUnitOfWork = Annotated[Db, Depends(get_read_unit_of_work, scope="function")]
Reads = Annotated[Db, Depends(get_reads)]
Provider = Annotated[VoiceProvider, Depends(get_provider)]
Telemetry = Annotated[TelemetryWriter, Depends(get_telemetry)]
Readiness = Annotated[ReadinessProbe, Depends(get_readiness)]
RequestId = Annotated[str, Depends(request_id)]


# The caller: the one authentication every user route uses, in its few variants.


async def shield_credential_lookup(resources: Resources, request: Request) -> None:
    """In front of every credential look-up (a forged but well-formed token costs a query):
    LISAN_RATE_LIMIT_IP per client IP, counted in this process."""
    await resources.rate_limiter.hit_in_process(
        resources.settings.rate_limit_ip, "credential-ip", client_ip(request)
    )


async def _authenticated(
    request: Request, resources: Resources, purpose: Purpose, limit: str, bucket: str
) -> Principal:
    await shield_credential_lookup(resources, request)
    principal = await authenticate(
        resources.database.reads,
        resources.settings,
        request.headers.get("authorization"),
        request.headers.get("x-install-id"),
        purpose,
    )
    await resources.rate_limiter.hit(limit, bucket, str(principal.user_id))
    return principal


async def current_user(request: Request) -> Principal:
    resources = services_of(request).resources
    limit = resources.settings.rate_limit_user
    return await _authenticated(request, resources, Purpose.USE, limit, "user")


async def commanding_user(request: Request) -> Principal:
    resources = services_of(request).resources
    limit = resources.settings.rate_limit_commands
    return await _authenticated(request, resources, Purpose.USE, limit, "commands")


async def deleting_user(request: Request) -> Principal:
    """A user asking for their data's deletion: also once their account is `deleted` (the
    request may be repeated while its job is in flight)."""
    resources = services_of(request).resources
    limit = resources.settings.rate_limit_user
    return await _authenticated(request, resources, Purpose.DELETE_DATA, limit, "user")


async def refreshing_user(request: Request) -> Principal:
    resources = services_of(request).resources
    limit = resources.settings.rate_limit_user
    return await _authenticated(request, resources, Purpose.REFRESH, limit, "user")


async def presented_session(request: Request) -> Principal | None:
    """The live session a register-device call presents, if any; never raises. The install id
    is in the body, and the service checks the session is bound to it."""
    if "authorization" not in request.headers:
        return None
    resources = services_of(request).resources
    try:
        return await session_for_token(
            resources.database.reads,
            resources.settings,
            request.headers["authorization"],
            Purpose.USE,
        )
    except NotAuthenticated:
        return None


async def admin_call(request: Request) -> admin.AdminCall:
    """An operator's call: who is calling, once the limits have let it through."""
    resources = services_of(request).resources
    await shield_credential_lookup(resources, request)
    return await admin.admit(
        resources.rate_limiter,
        resources.database.reads,
        resources.settings.rate_limit_user,
        request.headers.get("authorization"),
        request.state.request_id,
        client_ip(request),
    )


CurrentUser = Annotated[Principal, Depends(current_user)]
RefreshingUser = Annotated[Principal, Depends(refreshing_user)]
CommandingUser = Annotated[Principal, Depends(commanding_user)]
DeletingUser = Annotated[Principal, Depends(deleting_user)]
PresentedSession = Annotated[Principal | None, Depends(presented_session)]
AdminCaller = Annotated[admin.AdminCall, Depends(admin_call)]


# The one per-client-IP limit of each route that has no user yet; a route names its limit in
# `dependencies=`, so every call counts (a malformed one too).


async def _per_client_ip(request: Request, resources: Resources, limit: str, bucket: str) -> None:
    await resources.rate_limiter.hit(limit, bucket, client_ip(request))


async def limit_registrations(request: Request) -> None:
    resources = services_of(request).resources
    await _per_client_ip(request, resources, resources.settings.rate_limit_register, "register")


async def limit_job_lookups(request: Request) -> None:
    resources = services_of(request).resources
    limit = resources.settings.rate_limit_job_lookup
    await _per_client_ip(request, resources, limit, "job_lookup")


async def limit_phrase_lookups(request: Request) -> None:
    resources = services_of(request).resources
    await _per_client_ip(request, resources, resources.settings.rate_limit_user, "phrases-ip")


# What the request carries.


async def raw_body(request: Request) -> bytes:
    """The body as sent. The request edge has read it, within its bounds, before the app runs;
    Starlette keeps it on the request, so the body model and these bytes are one read."""
    return await request.body()


@cache  # one dependency per model: FastAPI runs it once per request, however often it is named
def json_body(model: type[ModelT]) -> Callable[[Request], Awaitable[ModelT]]:
    """The dependency that parses the body as `model`: orjson, strict, and the model's own
    handling of unknown fields; an invalid body is a 400 naming the first problem."""

    async def parse(request: Request) -> ModelT:
        return parse_json_body(await request.body(), model)

    return parse


if TYPE_CHECKING:
    # To a type checker, `JsonBody[Model]` is `Model`.
    JsonBody = Annotated[ModelT, "the request's body"]
else:

    class JsonBody:
        """`body: JsonBody[Model]`: the body parsed as `Model` (json_body)."""

        def __class_getitem__(cls, model: Any) -> Any:
            return Annotated[model, Depends(json_body(model))]


async def idempotency_key(request: Request) -> uuid.UUID:
    """A command's X-Idempotency-Key (a 400 unless it is a hyphenated UUID)."""
    return idempotency.parse_key(request.headers.get("x-idempotency-key"))


async def term_id_in_path(term_id: Annotated[str, Path(alias="termId")]) -> uuid.UUID:
    """A vocabulary term's id from its path: any string, where one that is not a UUID is a 404
    like an unknown term."""
    return parse_term_id(term_id)


RawBody = Annotated[bytes, Depends(raw_body)]
IdempotencyKey = Annotated[uuid.UUID, Depends(idempotency_key)]
TermId = Annotated[uuid.UUID, Depends(term_id_in_path)]
