"""Accounts: creation at registration, the account states, and what a user sees of themselves."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy.exc import IntegrityError

from lisan.core.errors import Conflict, NotFound
from lisan.core.ids import path_uuid
from lisan.core.locale import Locale
from lisan.db.handle import Db
from lisan.db.types import utcnow
from lisan.users import repository
from lisan.users.models import AccountStatus, User
from lisan.users.schemas import CurrentUserView, Preferences

# Percent of the phone's normal speaking rate.
DEFAULT_SPEECH_RATE = 100
DEFAULT_WAKE_WORDS = {Locale.AM_ET: "ሰላም ሊሳን", Locale.EN_US: "Hey Lisan"}


class InstallIdTaken(Conflict):
    default_message = "install id already registered; register a new install"


class AccountDeleted(Conflict):
    default_message = "account is being deleted"
    default_headers = {"Retry-After": "60"}


@dataclass(frozen=True, slots=True)
class AccountChange:
    user: User
    changed: bool


def parse_user_id(user_id: str) -> uuid.UUID:
    return path_uuid(user_id, NotFound("no such user"))


async def create_account(db: Db, install_id: str, locale: Locale) -> User:
    user = User(
        id=uuid.uuid4(),
        install_id=install_id,
        status=AccountStatus.ACTIVE.value,
        locale=locale.value,
        speech_rate=DEFAULT_SPEECH_RATE,
        wake_word=DEFAULT_WAKE_WORDS[locale],
        registered_at=utcnow(),
    )
    try:
        await repository.insert_user(db, user)
    except IntegrityError:  # a concurrent registration of the same install id won
        raise InstallIdTaken from None
    return user


async def find_by_install_id(db: Db, install_id: str) -> User | None:
    return await repository.get_user_by_install_id(db, install_id)


async def get_account(db: Db, user_id: str, *, for_update: bool = False) -> User:
    user = await repository.get_user(db, parse_user_id(user_id), for_update=for_update)
    if user is None:
        raise NotFound("no such user")
    return user


async def set_locale(db: Db, user: User, locale: Locale) -> None:
    """A wake word still at the old locale's default follows the locale; a chosen one stays."""
    if user.wake_word == DEFAULT_WAKE_WORDS.get(Locale(user.locale)):
        user.wake_word = DEFAULT_WAKE_WORDS[locale]
    user.locale = locale.value
    await repository.update_user(db, user.id, locale=user.locale, wake_word=user.wake_word)


async def _change_status(db: Db, user_id: str, status: AccountStatus) -> AccountChange:
    """Move an account between active and suspended; idempotent; never out of `deleted`."""
    user = await get_account(db, user_id, for_update=True)
    if user.status == AccountStatus.DELETED:
        raise AccountDeleted
    if user.status == status:
        return AccountChange(user, changed=False)
    user.status = status.value
    user.suspended_at = utcnow() if status is AccountStatus.SUSPENDED else None
    await repository.update_user(db, user.id, status=user.status, suspended_at=user.suspended_at)
    return AccountChange(user, changed=True)


async def suspend(db: Db, user_id: str) -> AccountChange:
    return await _change_status(db, user_id, AccountStatus.SUSPENDED)


async def reinstate(db: Db, user_id: str) -> AccountChange:
    return await _change_status(db, user_id, AccountStatus.ACTIVE)


def current_user_view(
    user_id: uuid.UUID, locale: str, speech_rate: int, wake_word: str
) -> CurrentUserView:
    return CurrentUserView(
        user_id=user_id,
        locale=Locale(locale),
        preferences=Preferences(speech_rate=speech_rate, wake_word=wake_word),
    )


async def hold_live_account(db: Db, user_id: uuid.UUID) -> bool:
    """Whether the account exists and no deletion has begun, held as it is until the caller's
    transaction ends: a deletion request (which changes the status) and a deletion job (which
    removes the row) wait for it. For work that must not outlive the account, such as keeping
    a recording."""
    status = await repository.get_status_held(db, user_id)
    return status is not None and AccountStatus(status) is not AccountStatus.DELETED


async def hold_account_exclusively(db: Db, user_id: uuid.UUID) -> None:
    """The account held against `hold_live_account` until the caller's transaction ends: work
    that removes what a command keeps under that hold (a recording) neither runs beside one nor
    decides on what it read before one."""
    await repository.lock_account(db, user_id)


async def mark_deleted(db: Db, user_id: uuid.UUID) -> None:
    """Deletion requested: from now on the account's sessions answer 409 (but to repeat it)."""
    await repository.update_user(db, user_id, status=AccountStatus.DELETED.value)


async def remove_account(db: Db, user_id: uuid.UUID) -> None:
    """The last step of a deletion: the row goes, and every table that references it with it."""
    await repository.delete_user(db, user_id)
