"""Who is calling: session tokens, their life cycle, and the account states user routes obey."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import Enum
from typing import Any, Literal

from sqlalchemy import Row

from lisan.auth import repository
from lisan.auth.schemas import INSTALL_ID_PATTERN, DeviceRegistration, SessionGrant
from lisan.core import tokens
from lisan.core.errors import Forbidden, NotAuthenticated
from lisan.core.locale import Locale
from lisan.core.settings import Settings
from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.users import service as users
from lisan.users.models import AccountStatus

_INSTALL_ID = re.compile(INSTALL_ID_PATTERN)


class AccountSuspended(Forbidden):
    default_message = "account suspended"


class Purpose(Enum):
    """What the credential is presented for; each bends one rule."""

    USE = "use"
    REFRESH = "refresh"  # an expired token may still be refreshed within the grace period
    DELETE_DATA = "delete_data"  # a deleted account may repeat its deletion request


@dataclass(frozen=True, slots=True)
class Principal:
    """The caller of a user route: the session's owner, never an id read from the request."""

    session_id: uuid.UUID
    user_id: uuid.UUID
    install_id: str
    status: str
    locale: str
    speech_rate: int
    wake_word: str

    @classmethod
    def from_row(cls, row: Row[Any]) -> Principal:
        return cls(
            session_id=row.id,
            user_id=row.user_id,
            install_id=row.install_id,
            status=row.account_status,
            locale=row.account_locale,
            speech_rate=row.account_speech_rate,
            wake_word=row.account_wake_word,
        )


def _live(row: Row[Any], now: datetime, purpose: Purpose, grace_s: int) -> bool:
    if row.revoked_at is not None:
        return False
    if row.expires_at > now:
        return True
    return purpose is Purpose.REFRESH and now - row.expires_at <= timedelta(seconds=grace_s)


async def session_for_token(
    db: Db, settings: Settings, authorization: str | None, purpose: Purpose
) -> Principal:
    """The live session of the bearer token in `authorization`, or 401."""
    token = tokens.bearer_token(authorization)
    if token is None:
        raise NotAuthenticated(token_sent=False)
    if not token or not tokens.is_well_formed(token, tokens.SESSION_PREFIX):
        raise NotAuthenticated(token_sent=True)
    row = await repository.get_principal_by_hash(db, tokens.token_hash(token))
    if row is None:
        raise NotAuthenticated(token_sent=True)
    if not _live(row, utcnow(), purpose, settings.refresh_grace_s):
        raise NotAuthenticated(token_sent=True, message="session expired or revoked")
    return Principal.from_row(row)


def check_account(principal: Principal, purpose: Purpose) -> None:
    """403 while suspended; 409 once deletion was requested (except to repeat that request)."""
    if principal.status == AccountStatus.SUSPENDED:
        raise AccountSuspended
    if principal.status == AccountStatus.DELETED and purpose is not Purpose.DELETE_DATA:
        raise users.AccountDeleted


async def authenticate(
    db: Db,
    settings: Settings,
    authorization: str | None,
    install_id: str | None,
    purpose: Purpose = Purpose.USE,
) -> Principal:
    """The caller of a user route: the live session these headers present (the token and its
    install id; else 401), whose account may make this call (else 403 or 409)."""
    if install_id is None or not _INSTALL_ID.match(install_id):
        sent = tokens.bearer_token(authorization) is not None
        raise NotAuthenticated(token_sent=sent, message="missing or invalid X-Install-ID")
    principal = await session_for_token(db, settings, authorization, purpose)
    if not tokens.same_secret(principal.install_id, install_id):
        raise NotAuthenticated(token_sent=True)
    check_account(principal, purpose)
    return principal


async def _issue(
    db: Db,
    settings: Settings,
    *,
    user_id: uuid.UUID,
    install_id: str,
    status: Literal["registered", "refreshed"],
) -> SessionGrant:
    token = tokens.new_token(tokens.SESSION_PREFIX)
    now = utcnow()
    await repository.insert_session(
        db,
        user_id=user_id,
        install_id=install_id,
        token_hash=tokens.token_hash(token),
        created_at=now,
        expires_at=now + timedelta(seconds=settings.session_ttl_s),
    )
    return SessionGrant(status=status, session_token=token, expires_in=settings.session_ttl_s)


async def register_device(
    db: Db,
    settings: Settings,
    body: DeviceRegistration,
    presented: Principal | None,
) -> SessionGrant:
    """A new install id gets an account and a session; a known one needs its current session,
    which is then replaced (without it: 409, and the phone starts a new install)."""
    user = await users.find_by_install_id(db, body.install_id)
    if user is None:
        user = await users.create_account(db, body.install_id, body.locale or Locale.AM_ET)
        return await _issue(
            db, settings, user_id=user.id, install_id=body.install_id, status="registered"
        )
    if user.status == AccountStatus.SUSPENDED:
        raise AccountSuspended
    if user.status == AccountStatus.DELETED:
        raise users.AccountDeleted
    if presented is None or presented.user_id != user.id or presented.install_id != user.install_id:
        raise users.InstallIdTaken
    if not await repository.update_session_revoked(
        db, session_id=presented.session_id, now=utcnow()
    ):
        raise users.InstallIdTaken  # a concurrent request replaced that session first
    if body.locale is not None:
        await users.set_locale(db, user, body.locale)
    return await _issue(
        db, settings, user_id=user.id, install_id=body.install_id, status="registered"
    )


async def refresh(db: Db, settings: Settings, principal: Principal) -> SessionGrant:
    if not await repository.update_session_revoked(
        db, session_id=principal.session_id, now=utcnow()
    ):
        raise NotAuthenticated(token_sent=True, message="session expired or revoked")
    return await _issue(
        db,
        settings,
        user_id=principal.user_id,
        install_id=principal.install_id,
        status="refreshed",
    )


async def logout(db: Db, principal: Principal) -> None:
    if not await repository.update_session_revoked(
        db, session_id=principal.session_id, now=utcnow()
    ):
        # A concurrent refresh or re-registration replaced this session first.
        raise NotAuthenticated(token_sent=True, message="session expired or revoked")
