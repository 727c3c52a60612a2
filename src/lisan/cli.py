"""The `lisan` command line (also `python -m lisan`). Errors go to stderr with exit status 1."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
from pathlib import Path
from typing import Annotated

import typer

from lisan.admin.cli import admin_app
from lisan.billing.cli import billing_app
from lisan.core.locale import Locale
from lisan.core.settings import SettingsError
from lisan.db.cli import fail, load_settings_or_exit, migrate_or_exit
from lisan.db.database import create_engine, database_is_reachable
from lisan.db.migrate import upgrade_to_head
from lisan.phrases import service as phrases
from lisan.server import metrics_listener

log = logging.getLogger("lisan.cli")

app = typer.Typer(
    name="lisan",
    help="Lisan: the backend of a voice-control assistant (am-ET, en-US).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


async def _reachable(database_url: str) -> bool:
    engine = create_engine(database_url)
    try:
        return await database_is_reachable(engine)
    finally:
        await engine.dispose()


@app.command()
def migrate() -> None:
    """Apply the database migrations and exit."""
    migrate_or_exit(load_settings_or_exit())
    typer.echo("migrations applied", err=True)


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to bind.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to bind.")] = 8000,
    workers: Annotated[int, typer.Option(min=1, help="Server processes.")] = 1,
) -> None:
    """Apply migrations, then serve the API."""
    import uvicorn

    from lisan.server.protocol import BoundedHttpToolsProtocol

    settings = load_settings_or_exit()
    # The factories give the app the configured body timeouts; the protocol bounds headers.
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
    try:
        metrics_listener.start(settings, workers)
    except OSError as exc:
        fail(f"LISAN_METRICS_PORT: cannot listen on it: {exc}")
    uvicorn.run(
        factory,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=BoundedHttpToolsProtocol,
        access_log=False,
        log_config=None,
        server_header=False,
        proxy_headers=True,
    )


@app.command()
def worker() -> None:
    """Apply migrations, then run the background worker alone (deletion jobs and purges) until
    stopped (SIGINT or SIGTERM)."""
    import signal

    from lisan.db.resources import Resources
    from lisan.worker import Worker

    settings = load_settings_or_exit()
    migrate_or_exit(settings)
    try:
        metrics_listener.start(settings, workers=1)
    except OSError as exc:
        fail(f"LISAN_METRICS_PORT: cannot listen on it: {exc}")

    async def run() -> None:
        # The same engines as `serve`: on SQLite, polls read without the write lock.
        resources = Resources.open(settings)
        worker = Worker(settings, resources.database)
        task = asyncio.create_task(worker.run_forever())
        loop = asyncio.get_running_loop()
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, task.cancel)
        log.info("worker started")
        try:
            await task
        except asyncio.CancelledError:
            log.info("worker stopped")
        finally:
            await resources.close()

    asyncio.run(run())


app.add_typer(admin_app, name="admin")
app.add_typer(billing_app, name="billing")


phrases_app = typer.Typer(
    help="The catalog of pre-synthesised spoken phrases.", no_args_is_help=True
)
app.add_typer(phrases_app, name="phrases")


@phrases_app.command("export")
def phrases_export(
    language: Annotated[
        Locale, typer.Option("--language", help="The catalog's language.")
    ] = phrases.DEFAULT_LANGUAGE,
) -> None:
    """Print one language's phrase catalog as UTF-8 JSON (to produce the pre-synthesised audio)."""
    # Bytes, not text: the lines are Ethiopic whatever the terminal's locale.
    sys.stdout.buffer.write((phrases.export_json(language) + "\n").encode("utf-8"))
    sys.stdout.flush()


@app.command()
def say(
    text: Annotated[str, typer.Argument(help='what to say, e.g. "open telegram"')],
    language: Annotated[Locale, typer.Option(help="the language it is said in")] = Locale.EN_US,
    screen: Annotated[
        Path | None,
        typer.Option(help="a JSON file with current_package and view_tree_summary"),
    ] = None,
    url: Annotated[str, typer.Option(help="the running service")] = "http://127.0.0.1:8000",
) -> None:
    """Speak TEXT with espeak-ng and send it as a command from a demo device; print the answer."""
    from lisan import say as demo  # espeak-ng and httpx are this command's alone

    context = demo.DEMO_SCREEN
    if screen is not None:
        try:
            context = json.loads(screen.read_text())
        except (OSError, ValueError) as exc:
            fail(f"--screen: {exc}")
    try:
        answer = demo.say(text, language, context, url)
    except demo.SayError as exc:
        fail(str(exc))
    typer.echo(json.dumps(answer, indent=2, ensure_ascii=False))


def main() -> None:
    try:
        app()
    except SettingsError as exc:  # raised lazily by a command that reads settings late
        typer.echo(f"lisan: {exc}", err=True)
        sys.exit(1)
