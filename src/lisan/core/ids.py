"""Ids read from a request path."""

from __future__ import annotations

import uuid

from lisan.core.errors import NotFound


def path_uuid(value: str, missing: NotFound) -> uuid.UUID:
    """A path id that is not a UUID names nothing: the same 404 as an unknown one."""
    try:
        return uuid.UUID(value)
    except ValueError:
        raise missing from None
