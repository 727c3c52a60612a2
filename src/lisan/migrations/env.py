"""Alembic environment: async engines for SQLite and PostgreSQL, one migrator at a time."""

from __future__ import annotations

import asyncio
import os
from typing import Any, Literal

from alembic import context
from sqlalchemy import text
from sqlalchemy.engine import Connection

import lisan.models
from lisan.db.database import create_engine
from lisan.db.migrate import MIGRATION_LOCK_ID
from lisan.db.types import UtcDateTime

config = context.config
target_metadata = lisan.models.Base.metadata


def _database_url() -> str:
    url = (
        config.attributes.get("database_url")
        or os.environ.get("LISAN_DATABASE_URL")
        or config.get_main_option("sqlalchemy.url")
    )
    if not url:
        raise RuntimeError("no database URL given to the migrations")
    return str(url)


def _render_item(type_: str, obj: Any, autogen_context: Any) -> str | Literal[False]:
    # Migrations stay free of application imports: UtcDateTime is a plain timezone-aware DateTime.
    if type_ == "type" and isinstance(obj, UtcDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        if connection.dialect.name == "postgresql":
            # Several server processes may start at once; the others wait, then find nothing to do.
            connection.execute(text(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_ID})"))
        context.run_migrations()


# A migration's DDL, or its wait for another process's migration lock, may outlast the bound
# every request's statement has (db.database): migrations run unbounded.
_UNBOUNDED: dict[str, Any] = {
    "command_timeout": None,
    "server_settings": {"statement_timeout": "0"},
}


async def _run_online() -> None:
    url = _database_url()
    connect_args = _UNBOUNDED if url.startswith("postgresql") else {}
    engine = create_engine(url, connect_args=connect_args)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
            await connection.commit()
    finally:
        await engine.dispose()


def _run_offline() -> None:
    context.configure(url=_database_url(), target_metadata=target_metadata, literal_binds=True)
    with context.begin_transaction():
        context.run_migrations()


if context.is_offline_mode():
    _run_offline()
else:
    asyncio.run(_run_online())
