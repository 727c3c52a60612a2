"""A look at the statements an app sends its database, for tests that some work costs none."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from lisan.app import LisanApp


@contextmanager
def count_statements(app: LisanApp) -> Iterator[list[str]]:
    """Every statement the app's engines run inside the block, appended as it runs."""
    resources = app.services.resources
    # On PostgreSQL the read engine is the write engine with options: its events are shared.
    engines = [resources.write_engine.sync_engine]
    if resources.engine.sync_engine.pool is not resources.write_engine.sync_engine.pool:
        engines.append(resources.engine.sync_engine)
    if resources.lookups.inline is not None:  # SQLite's credential look-ups
        engines.append(resources.lookups.inline)
    statements: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    for engine in engines:
        event.listen(engine, "before_cursor_execute", record)
    try:
        yield statements
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", record)
