from __future__ import annotations

import asyncio

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, text
from sqlalchemy.ext.asyncio import AsyncEngine

from lisan.db.database import DATABASE_TIMEOUT_S, NAMING_CONVENTION, Base
from lisan.db.migrate import MIGRATION_LOCK_ID, alembic_config, upgrade_to_head


async def test_the_database_is_migrated_to_head(
    admin_engine: AsyncEngine, database_url: str
) -> None:
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    async with admin_engine.connect() as connection:
        current = (
            await connection.execute(text("SELECT version_num FROM alembic_version"))
        ).scalar()
    assert head is not None
    assert current == head


async def test_sqlite_runs_in_wal_mode_with_foreign_keys(
    admin_engine: AsyncEngine, database_kind: str
) -> None:
    if database_kind != "sqlite":
        return
    async with admin_engine.connect() as connection:
        journal = (await connection.execute(text("PRAGMA journal_mode"))).scalar()
        foreign_keys = (await connection.execute(text("PRAGMA foreign_keys"))).scalar()
    assert journal == "wal"
    assert foreign_keys == 1


def test_constraint_names_follow_the_convention() -> None:
    assert Base.metadata.naming_convention == NAMING_CONVENTION


def test_migration_files_are_date_slug_named() -> None:
    script = ScriptDirectory.from_config(alembic_config("sqlite+aiosqlite://"))
    for revision in script.walk_revisions():
        name = revision.path.rsplit("/", 1)[-1]
        assert name[:8].isdigit(), name
        assert name[8] == "_", name


async def test_the_migrations_match_the_models(admin_engine: AsyncEngine) -> None:
    """What `alembic check` does: no difference between the migrated schema and the models."""
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    import lisan.models

    def diff(connection: Connection) -> list[object]:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        return list(compare_metadata(context, lisan.models.Base.metadata))

    async with admin_engine.connect() as connection:
        differences = await connection.run_sync(diff)
    assert differences == []


async def test_a_migration_may_wait_longer_than_a_requests_bound(
    admin_engine: AsyncEngine, database_url: str, database_kind: str
) -> None:
    """Every request's statement is bounded (DATABASE_TIMEOUT_S); a server that starts while
    another process migrates waits for that process's lock as long as it takes."""
    if database_kind != "postgresql":
        pytest.skip("the migration lock and the statement bound are PostgreSQL's")
    lock = text(f"SELECT pg_advisory_lock({MIGRATION_LOCK_ID})")
    unlock = text(f"SELECT pg_advisory_unlock({MIGRATION_LOCK_ID})")
    async with admin_engine.connect() as holder:
        await holder.execute(lock)
        migrating = asyncio.create_task(asyncio.to_thread(upgrade_to_head, database_url))
        await asyncio.sleep(DATABASE_TIMEOUT_S + 0.5)
        assert not migrating.done()
        await holder.execute(unlock)
        await holder.commit()
    await asyncio.wait_for(migrating, timeout=30)
