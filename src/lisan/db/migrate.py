"""Alembic, driven from code: `lisan migrate`, `lisan serve` and the test fixtures all come here."""

from __future__ import annotations

from alembic import command
from alembic.config import Config

# Any fixed number: every process that migrates the same PostgreSQL database takes this lock.
MIGRATION_LOCK_ID = 0x4C6973616E
FILE_TEMPLATE = "%%(year)d%%(month).2d%%(day).2d_%%(hour).2d%%(minute).2d_%%(slug)s"


def alembic_config(database_url: str) -> Config:
    config = Config()
    config.set_main_option("script_location", "lisan:migrations")
    config.set_main_option("file_template", FILE_TEMPLATE)
    config.attributes["database_url"] = database_url
    return config


def upgrade_to_head(database_url: str) -> None:
    """Apply every pending migration. Blocking: call it in a thread from async code."""
    command.upgrade(alembic_config(database_url), "head")
