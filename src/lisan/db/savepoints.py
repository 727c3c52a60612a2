"""Savepoints spoken as SQL, for a handle that talks to its driver itself (`db.inline`,
`db.raw_postgres`): `Db.savepoint`, as SQLAlchemy's `begin_nested` gives the engine's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress


class SqlSavepoints:
    """`savepoint()` by SAVEPOINT, ROLLBACK TO and RELEASE, named by depth (nested ones
    differ; a savepoint's name is reused only once it is released)."""

    _depth = 0

    async def _plain(self, sql: str) -> None:
        raise NotImplementedError

    @asynccontextmanager
    async def savepoint(self, *, keep: bool = True) -> AsyncIterator[None]:
        self._depth += 1
        name = f"lisan_{self._depth}"
        try:
            await self._plain(f"SAVEPOINT {name}")
            try:
                yield
            except BaseException:
                # The block's error is the news; a rollback that fails too (a connection
                # gone) leaves the unit of work to its own rollback.
                with suppress(Exception):
                    await self._plain(f"ROLLBACK TO SAVEPOINT {name}")
                    await self._plain(f"RELEASE SAVEPOINT {name}")
                raise
            if not keep:
                await self._plain(f"ROLLBACK TO SAVEPOINT {name}")
            await self._plain(f"RELEASE SAVEPOINT {name}")
        finally:
            self._depth -= 1
