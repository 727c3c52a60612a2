"""X-Idempotency-Key for POST /v1/commands, kept in the database so every server process sees it.

The first request with a (user, key) claims it (a `running` record with a lease), runs, and
stores its final response; a retry with the same body replays that response byte for byte; a
different body is 422; a duplicate that arrives while the first runs polls until the result is
there (or answers 409 past a bound). 502/503/504 are not final: the record is removed, so the
same key runs again. A claim whose owner died is taken over once its lease has passed.

Each claim carries an owner token, and `finish` and `release` apply only while the caller's
token is the record's: a request that lost its lease to a takeover (it was slow, not dead) can
neither overwrite the new owner's answer nor give away the key the new owner runs under.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from enum import Enum

from lisan.commands import repository
from lisan.commands.models import DONE, RUNNING
from lisan.core.errors import BadRequest, Conflict, UnprocessableEntity
from lisan.db.handle import Db
from lisan.db.types import utcnow

log = logging.getLogger(__name__)

RETENTION = timedelta(hours=24)
POLL_S = (0.02, 0.25)  # first and longest pause while a duplicate waits


class KeyReused(UnprocessableEntity):
    default_message = "this idempotency key was already used with a different body"


class StillRunning(Conflict):
    default_message = "a request with this idempotency key is still running"
    default_headers = {"Retry-After": "2"}


class Claim(Enum):
    OWNED = "owned"  # the caller runs the command
    HELD = "held"  # another request is running it


OWNED, HELD = Claim.OWNED, Claim.HELD
# How much longer than the caller waits for a duplicate a claim's lease lasts: past it, the
# owner is taken for dead.
LEASE_MARGIN_S = 5.0


@dataclass(frozen=True, slots=True)
class Replay:
    status: int
    body: bytes


_CANONICAL_UUID = re.compile(
    r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
)


def parse_key(header: str | None) -> uuid.UUID:
    """Only the hyphenated form (uuid.UUID would also take bare hex, braces and urn:uuid:)."""
    if header is None or not _CANONICAL_UUID.match(header):
        raise BadRequest("X-Idempotency-Key: must be a UUID")
    return uuid.UUID(header)


def body_hash(raw: bytes) -> bytes:
    return hashlib.sha256(raw).digest()


class Waiting:
    """The pauses of a duplicate that waits for the request holding its key: growing from
    `POLL_S[0]` to `POLL_S[1]`, and `StillRunning` (409) once `bound_s` has passed."""

    def __init__(self, bound_s: float) -> None:
        self._deadline = time.monotonic() + bound_s
        self._pause = POLL_S[0]

    async def pause(self) -> None:
        if time.monotonic() >= self._deadline:
            raise StillRunning
        await asyncio.sleep(self._pause)
        self._pause = min(self._pause * 1.5, POLL_S[1])


async def try_claim(
    db: Db,
    *,
    user_id: uuid.UUID,
    key: uuid.UUID,
    digest: bytes,
    lease_s: float,
    owner: uuid.UUID,
) -> Replay | Claim:
    """In the caller's transaction: the stored answer to replay, OWNED (the caller now runs the
    command under `owner` and must `finish` or `release` the key), or HELD (another request
    runs it: wait and try again)."""
    now = utcnow()
    lease_until = now + timedelta(seconds=lease_s)
    fresh = {
        "user_id": user_id,
        "key": key,
        "body_hash": digest,
        "state": RUNNING,
        "owner": owner,
        "lease_until": lease_until,
        "created_at": now,
        "expires_at": now + RETENTION,
    }
    if await repository.insert_record_if_absent(db, fresh):  # the common case: one statement
        return OWNED
    record = await repository.get_record(db, user_id=user_id, key=key)
    if record is not None and record.expires_at <= now:  # past its 24 h: the key is free again
        await repository.delete_record(db, user_id=user_id, key=key)
        record = None
    if record is None:  # removed, or released by its owner since the insert found it
        return OWNED if await repository.insert_record_if_absent(db, fresh) else HELD
    if record.body_hash != digest:
        raise KeyReused
    if record.state == DONE and record.response_body is not None:
        return Replay(record.response_status or 200, record.response_body)
    if record.lease_until <= now:  # its owner went away mid-run: take it over
        await repository.update_record_owner(
            db, user_id=user_id, key=key, owner=owner, lease_until=lease_until
        )
        return OWNED
    return HELD


async def finish(
    db: Db,
    *,
    user_id: uuid.UUID,
    key: uuid.UUID,
    owner: uuid.UUID,
    status: int,
    body: bytes,
) -> bool:
    """Store the final response, in the caller's unit of work (with the command's records).
    False when the caller no longer owns the key: the new owner's answer is the one kept."""
    finished = await repository.update_record_finished(
        db, user_id=user_id, key=key, owner=owner, status=status, body=body
    )
    if not finished:
        log.warning("idempotency key taken over before its first owner finished")
    return finished


async def release(db: Db, *, user_id: uuid.UUID, key: uuid.UUID, owner: uuid.UUID) -> None:
    """Give the key back after a result that is not final (502/503/504, or a failure), if the
    caller still owns it."""
    await repository.delete_running_record(db, user_id=user_id, key=key, owner=owner)
