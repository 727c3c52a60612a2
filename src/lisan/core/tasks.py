"""The shape every domain's background purge shares, so the worker runs them all one way: a
call does one batch, of at most `limit` removals, and says what it did."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Batch:
    """What one batch of a purge did."""

    removed: int  # rows deleted, or folders removed
    more: bool  # there is more to do now (a full batch; a walk not at its end)

    @classmethod
    def of(cls, removed: int, *, limit: int) -> Batch:
        """A batch of deletions: a full one means more may be due now."""
        return cls(removed, more=removed >= limit)


class Purge(Protocol):
    """A purge as the worker calls it: the next batch. Safe from several workers at once."""

    async def __call__(self, *, limit: int) -> Batch: ...
