"""The one authentication dependency every user route uses, in its few variants."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from lisan.auth.service import (
    Principal,
    Purpose,
    authenticate,
    session_for_token,
)
from lisan.core.errors import NotAuthenticated
from lisan.core.ratelimit import shield_credential_lookup
from lisan.core.resources import Resources


async def _authenticated(request: Request, purpose: Purpose, limit: str, bucket: str) -> Principal:
    resources: Resources = request.app.state.resources
    await shield_credential_lookup(request)
    principal = await authenticate(
        resources.lookups,
        resources.settings,
        request.headers.get("authorization"),
        request.headers.get("x-install-id"),
        purpose,
    )
    await resources.rate_limiter.hit(limit, bucket, str(principal.user_id))
    return principal


async def current_user(request: Request) -> Principal:
    settings = request.app.state.resources.settings
    return await _authenticated(request, Purpose.USE, settings.rate_limit_user, "user")


async def commanding_user(request: Request) -> Principal:
    settings = request.app.state.resources.settings
    return await _authenticated(request, Purpose.USE, settings.rate_limit_commands, "commands")


async def deleting_user(request: Request) -> Principal:
    """A user asking for their data's deletion: also once their account is `deleted` (the
    request may be repeated while its job is in flight)."""
    settings = request.app.state.resources.settings
    return await _authenticated(request, Purpose.DELETE_DATA, settings.rate_limit_user, "user")


async def refreshing_user(request: Request) -> Principal:
    settings = request.app.state.resources.settings
    return await _authenticated(request, Purpose.REFRESH, settings.rate_limit_user, "user")


async def presented_session(request: Request) -> Principal | None:
    """The live session a register-device call presents, if any; never raises. The install id
    is in the body, and the service checks the session is bound to it."""
    resources: Resources = request.app.state.resources
    if "authorization" not in request.headers:
        return None
    try:
        return await session_for_token(
            resources.lookups, resources.settings, request.headers["authorization"], Purpose.USE
        )
    except NotAuthenticated:
        return None


CurrentUser = Annotated[Principal, Depends(current_user)]
RefreshingUser = Annotated[Principal, Depends(refreshing_user)]
CommandingUser = Annotated[Principal, Depends(commanding_user)]
