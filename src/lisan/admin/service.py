"""Audited admin support: look up, suspend, reinstate. Every call, whatever its end, is audited."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

from lisan.admin import repository
from lisan.admin.models import AdminCredential, AuditEvent, AuditOutcome, Permission
from lisan.admin.schemas import AdminUserView, ReinstateResult, SuspendResult
from lisan.core import tokens
from lisan.core.errors import Forbidden, LisanError, NotAuthenticated
from lisan.core.ratelimit import RateLimiter
from lisan.core.schemas import ResponseModel
from lisan.db.handle import Db
from lisan.db.store import Database
from lisan.db.types import utcnow
from lisan.users import service as users

log = logging.getLogger(__name__)

T = TypeVar("T")

# Longest target kept in the audit trail (a userId that is not a UUID may be any length).
_TARGET_CHARS = 128
_CLIENT_IP_CHARS = 45  # the longest text form of an IPv6 address


class AdminAction(StrEnum):
    READ_USER = "user.read"
    SUSPEND_USER = "user.suspend"
    REINSTATE_USER = "user.reinstate"


REQUIRED_PERMISSION = {
    AdminAction.READ_USER: Permission.USERS_READ,
    AdminAction.SUSPEND_USER: Permission.USERS_SUSPEND,
    AdminAction.REINSTATE_USER: Permission.USERS_SUSPEND,
}

_OUTCOME_BY_STATUS = {
    401: AuditOutcome.UNAUTHENTICATED,
    403: AuditOutcome.DENIED,
    404: AuditOutcome.NOT_FOUND,
    409: AuditOutcome.CONFLICT,
}


class CredentialNameTaken(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Admin:
    credential_id: uuid.UUID
    name: str
    permissions: frozenset[str]


@dataclass(frozen=True, slots=True)
class AdminCall:
    """One call to an admin route: who made it (if anyone we know), and where from."""

    admin: Admin | None
    token_sent: bool
    request_id: str
    client_ip: str


async def admit(
    limiter: RateLimiter,
    db: Db,
    limit: str,
    authorization: str | None,
    request_id: str,
    client_ip: str,
) -> AdminCall:
    """Who is calling, once the limits have let the call through: per credential, or per
    client IP when no known credential came. A refused caller gets its 429 here, before any
    audit row (or any write): its record is the access log, so a flood costs no table rows."""
    admin, token_sent = await identify(db, authorization)
    if admin is not None:
        await limiter.hit(limit, "admin-credential", str(admin.credential_id))
    else:
        await limiter.hit(limit, "admin-ip", client_ip)
    return AdminCall(admin, token_sent, request_id, client_ip)


def _event(call: AdminCall, action: AdminAction, target: str, outcome: AuditOutcome) -> AuditEvent:
    return AuditEvent(
        id=uuid.uuid4(),
        admin_credential_id=call.admin.credential_id if call.admin else None,
        admin_name=call.admin.name if call.admin else None,
        action=action.value,
        # PostgreSQL text cannot hold NUL; the trail must still record what was asked for.
        target=target[:_TARGET_CHARS].replace("\x00", "\ufffd"),
        outcome=outcome.value,
        client_ip=call.client_ip[:_CLIENT_IP_CHARS],
        request_id=call.request_id,
        created_at=utcnow(),
    )


async def _record_alone(
    database: Database, call: AdminCall, action: AdminAction, target: str, outcome: AuditOutcome
) -> None:
    """A call that changed nothing is audited in a transaction of its own (the call's rolled
    back). Best effort: a failing audit store must not hide the original answer."""
    try:
        async with database.transaction() as db:
            await repository.insert_audit_event(db, _event(call, action, target, outcome))
    except Exception:
        log.exception("audit record failed", extra={"action": action.value, "outcome": outcome})


async def audited(
    database: Database,
    call: AdminCall,
    action: AdminAction,
    target: str,
    operation: Callable[[Db], Awaitable[tuple[T, AuditOutcome]]],
) -> T:
    """The one way an admin action runs, once `admit` let it in: authenticate, authorise, act,
    audit. The action and its audit row commit in one transaction: both land or neither does.
    A call that fails is audited by its status (anything not a LisanError as error) in a
    transaction of its own, once its own has rolled back (on SQLite it held the write lock)."""
    try:
        if call.admin is None:
            raise NotAuthenticated(token_sent=call.token_sent)
        permission = REQUIRED_PERMISSION[action]
        if permission not in call.admin.permissions:
            raise Forbidden(f"this credential lacks the permission {permission}")
        async with database.transaction() as db:
            result, outcome = await operation(db)
            await repository.insert_audit_event(db, _event(call, action, target, outcome))
    except Exception as exc:
        status = exc.status_code if isinstance(exc, LisanError) else 500
        failed = _OUTCOME_BY_STATUS.get(status, AuditOutcome.ERROR)
        await _record_alone(database, call, action, target, failed)
        raise
    return result


async def identify(db: Db, authorization: str | None) -> tuple[Admin | None, bool]:
    """The live admin credential in `authorization` (None if there is none) and whether a
    token was sent at all. A session token is just an unknown credential here."""
    token = tokens.bearer_token(authorization)
    if not token or not tokens.is_well_formed(token, tokens.ADMIN_PREFIX):
        return None, token is not None
    row = await repository.get_live_credential_by_hash(db, tokens.token_hash(token))
    if row is None:
        return None, True
    return Admin(row.id, row.name, frozenset(row.permissions.split())), True


async def read_user(db: Db, user_id: str) -> tuple[AdminUserView, AuditOutcome]:
    user = await users.get_account(db, user_id)
    view = AdminUserView(
        user_id=str(user.id),
        status=user.status,
        registered_at=user.registered_at,
        suspended_at=user.suspended_at,
    )
    return view, AuditOutcome.OK


async def suspend_user(db: Db, user_id: str) -> tuple[SuspendResult, AuditOutcome]:
    change = await users.suspend(db, user_id)
    outcome = AuditOutcome.OK if change.changed else AuditOutcome.UNCHANGED
    return SuspendResult(user_id=str(change.user.id)), outcome


async def reinstate_user(db: Db, user_id: str) -> tuple[ReinstateResult, AuditOutcome]:
    change = await users.reinstate(db, user_id)
    outcome = AuditOutcome.OK if change.changed else AuditOutcome.UNCHANGED
    return ReinstateResult(user_id=str(change.user.id)), outcome


async def create_credential(db: Db, name: str, permissions: list[Permission]) -> str:
    """A new admin token (printed once, stored as a hash). A revoked name may be issued again,
    as a new credential: the revoked one keeps its row, and so its dates and audit history."""
    token = tokens.new_token(tokens.ADMIN_PREFIX)
    granted = " ".join(sorted({p.value for p in permissions}))
    if await repository.exists_live_credential_named(db, name):
        raise CredentialNameTaken(name)
    credential = AdminCredential(
        id=uuid.uuid4(),
        name=name,
        token_hash=tokens.token_hash(token),
        permissions=granted,
        created_at=utcnow(),
    )
    await repository.insert_credential(db, credential)
    return token


async def revoke_credential(db: Db, name: str) -> bool:
    return await repository.update_credential_revoked(db, name=name, now=utcnow())


_OPERATIONS = {
    AdminAction.READ_USER: read_user,
    AdminAction.SUSPEND_USER: suspend_user,
    AdminAction.REINSTATE_USER: reinstate_user,
}


async def perform(
    database: Database, call: AdminCall, action: AdminAction, user_id: str
) -> ResponseModel:
    """Run one admin action on one user, audited."""
    operation = _OPERATIONS[action]
    return await audited(database, call, action, user_id, lambda db: operation(db, user_id))
