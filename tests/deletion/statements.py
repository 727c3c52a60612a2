"""What the tests watch an engine send: every statement, or a hook run on the connection just
before a DELETE (what another transaction might have done by the time it runs)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from sqlalchemy import event
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine


@contextmanager
def statements_sent(engine: AsyncEngine) -> Iterator[list[str]]:
    """Every statement `engine` sends meanwhile, as sent."""
    sent: list[str] = []

    def record(_connection: object, _cursor: object, statement: str, *_: object) -> None:
        sent.append(statement)

    event.listen(engine.sync_engine, "before_cursor_execute", record)
    try:
        yield sent
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", record)


@contextmanager
def before_delete_from(
    engine: AsyncEngine, table: str, run: Callable[[Connection], None]
) -> Iterator[None]:
    """Run `run` on the connection, inside its transaction, just before the first DELETE from
    `table` that `engine` sends: what another transaction might have done by then."""
    fired = False

    def hook(connection: Connection, _cursor: object, statement: str, *_: object) -> None:
        nonlocal fired
        if not fired and statement.split()[:3] == ["DELETE", "FROM", table]:
            fired = True
            run(connection)

    event.listen(engine.sync_engine, "before_cursor_execute", hook)
    try:
        yield
    finally:
        event.remove(engine.sync_engine, "before_cursor_execute", hook)
    assert fired, f"nothing was deleted from {table}"
