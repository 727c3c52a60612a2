"""What every `lisan` subcommand shares: its one-line failure, its settings, its migrations and
its unit of work. The commands themselves live with their domain (`admin.cli`, `billing.cli`)
or, for the server and the tools, in `lisan.cli`."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import NoReturn, TypeVar

import typer

from lisan.core.logging import configure_logging
from lisan.core.settings import Settings, SettingsError, get_settings
from lisan.db.database import create_engine
from lisan.db.handle import Db
from lisan.db.migrate import upgrade_to_head
from lisan.db.store import unit_of_work

T = TypeVar("T")


def fail(message: str) -> NoReturn:
    """One line on stderr, exit status 1."""
    typer.echo(f"lisan: {message}", err=True)
    raise typer.Exit(1)


def load_settings_or_exit() -> Settings:
    try:
        settings = get_settings()
    except SettingsError as exc:
        fail(str(exc))
    configure_logging(settings)
    return settings


def migrate_or_exit(settings: Settings) -> None:
    """Apply the migrations; a failure is the command's one-line error."""
    try:
        upgrade_to_head(settings.database_url)
    except Exception as exc:
        fail(f"migration failed: {type(exc).__name__}: {exc}".splitlines()[0])


async def _in_unit_of_work(settings: Settings, work: Callable[[Db], Awaitable[T]]) -> T:
    engine = create_engine(settings.database_url, for_writes=True)
    try:
        async with unit_of_work(engine) as db:
            return await work(db)
    finally:
        await engine.dispose()


def run_in_unit_of_work(settings: Settings, work: Callable[[Db], Awaitable[T]]) -> T:
    """Migrate quietly, then run `work` in one committed transaction (the CLI's equivalent of
    a request): the command's own answer is all that should be printed."""
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        upgrade_to_head(settings.database_url)
    except Exception as exc:
        fail(f"database unavailable: {type(exc).__name__}")
    return asyncio.run(_in_unit_of_work(settings, work))
