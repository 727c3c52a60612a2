"""The `lisan` command line (also `python -m lisan`). Errors go to stderr with exit status 1."""

from __future__ import annotations

import asyncio
import logging
import sys
from typing import Annotated, NoReturn

import typer

from lisan.core.database import create_engine, database_is_reachable
from lisan.core.logging import configure_logging
from lisan.core.migrate import upgrade_to_head
from lisan.core.settings import Settings, SettingsError, get_settings

log = logging.getLogger("lisan.cli")

app = typer.Typer(
    name="lisan",
    help="Lisan: the backend of a voice-control assistant (am-ET, en-US).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def fail(message: str) -> NoReturn:
    typer.echo(f"lisan: {message}", err=True)
    raise typer.Exit(1)


def load_settings_or_exit() -> Settings:
    try:
        settings = get_settings()
    except SettingsError as exc:
        fail(str(exc))
    configure_logging(settings)
    return settings


async def _reachable(database_url: str) -> bool:
    engine = create_engine(database_url)
    try:
        return await database_is_reachable(engine)
    finally:
        await engine.dispose()


@app.command()
def migrate() -> None:
    """Apply the database migrations and exit."""
    settings = load_settings_or_exit()
    try:
        upgrade_to_head(settings.database_url)
    except Exception as exc:
        fail(f"migration failed: {type(exc).__name__}: {exc}".splitlines()[0])
    typer.echo("migrations applied", err=True)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to bind.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Server processes.")] = 1,
) -> None:
    """Apply migrations, then serve the API."""
    import uvicorn

    settings = load_settings_or_exit()
    factory = "lisan.app:serve_app"
    try:
        upgrade_to_head(settings.database_url)
    except Exception as exc:
        if asyncio.run(_reachable(settings.database_url)):
            fail(f"migration failed: {type(exc).__name__}: {exc}".splitlines()[0])
        # Keep serving (readiness says unavailable); each process migrates once the database is up.
        log.error(
            "database unavailable at start; serving unready", extra={"error": type(exc).__name__}
        )
        factory = "lisan.app:serve_app_migrating"
    uvicorn.run(
        factory,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        access_log=False,
        log_config=None,
        server_header=False,
        proxy_headers=True,
    )


def main() -> None:
    try:
        app()
    except SettingsError as exc:  # raised lazily by a command that reads settings late
        typer.echo(f"lisan: {exc}", err=True)
        sys.exit(1)
