"""The `lisan` command line (also `python -m lisan`). Errors go to stderr with exit status 1."""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import uuid
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, NoReturn, TypeVar

import typer
from sqlalchemy.ext.asyncio import AsyncSession

from lisan.admin import service as admin
from lisan.admin.models import Permission
from lisan.billing import service as billing
from lisan.billing.schemas import SubscriptionStatus
from lisan.core.database import (
    create_engine,
    create_session_factory,
    database_is_reachable,
    unit_of_work,
)
from lisan.core.errors import NotFound
from lisan.core.logging import configure_logging
from lisan.core.migrate import upgrade_to_head
from lisan.core.settings import Settings, SettingsError, get_settings
from lisan.phrases import service as phrases
from lisan.users.models import Locale

log = logging.getLogger("lisan.cli")

T = TypeVar("T")

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

    from lisan.core.server import BoundedHttpToolsProtocol

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

    from lisan.deletion.worker import Worker

    settings = load_settings_or_exit()
    try:
        upgrade_to_head(settings.database_url)
    except Exception as exc:
        fail(f"migration failed: {type(exc).__name__}: {exc}".splitlines()[0])

    async def run() -> None:
        engine = create_engine(settings.database_url, for_writes=True)
        task = asyncio.create_task(Worker(settings, create_session_factory(engine)).run_forever())
        loop = asyncio.get_running_loop()
        for stop in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(stop, task.cancel)
        log.info("worker started")
        try:
            await task
        except asyncio.CancelledError:
            log.info("worker stopped")
        finally:
            await engine.dispose()

    asyncio.run(run())


admin_app = typer.Typer(
    help="Admin credentials for the audited admin routes.", no_args_is_help=True
)
app.add_typer(admin_app, name="admin")

AdminName = Annotated[
    str, typer.Option("--name", help="Who holds the credential (1 to 64 characters).")
]


def _admin_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= 64:
        raise typer.BadParameter("must be 1 to 64 characters", param_hint="--name")
    return name


async def _in_unit_of_work(settings: Settings, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """Run `work` in one committed transaction (the CLI's equivalent of a request)."""
    engine = create_engine(settings.database_url, for_writes=True)
    try:
        async with unit_of_work(create_session_factory(engine)) as session:
            return await work(session)
    finally:
        await engine.dispose()


def _run_in_unit_of_work(settings: Settings, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    # Migrations run quietly here: the command's own answer is all that should be printed.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        upgrade_to_head(settings.database_url)
    except Exception as exc:
        fail(f"database unavailable: {type(exc).__name__}")
    return asyncio.run(_in_unit_of_work(settings, work))


@admin_app.command("create-token")
def admin_create_token(
    name: AdminName,
    permission: Annotated[
        list[Permission], typer.Option("--permission", help="Repeat for each permission.")
    ],
) -> None:
    """Print a new admin token, alone on stdout (only its hash is stored)."""
    settings = load_settings_or_exit()
    name = _admin_name(name)

    async def create(session: AsyncSession) -> str:
        return await admin.create_credential(session, name, permission)

    try:
        token = _run_in_unit_of_work(settings, create)
    except admin.CredentialNameTaken:
        fail(f"an admin credential named {name!r} exists; revoke it first")
    typer.echo(token)


@admin_app.command("revoke-token")
def admin_revoke_token(name: AdminName) -> None:
    """Revoke the admin credential with that name."""
    settings = load_settings_or_exit()
    name = _admin_name(name)

    async def revoke(session: AsyncSession) -> bool:
        return await admin.revoke_credential(session, name)

    if not _run_in_unit_of_work(settings, revoke):
        fail(f"no live admin credential named {name!r}")
    typer.echo(f"revoked {name}", err=True)


billing_app = typer.Typer(
    help="Subscriptions, as a billing sync records them.", no_args_is_help=True
)
app.add_typer(billing_app, name="billing")


MAX_QUOTA = 2**31 - 1  # the column is a 32-bit integer on PostgreSQL
# Renewal dates the billing-cycle arithmetic (months counted back from it) and every database
# can hold, with room to spare.
RENEWAL_YEARS = range(1970, 9000)


def _renewal_date(text: str | None) -> datetime | None:
    """ISO 8601; a time without an offset is UTC."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text.strip())
        moment = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):  # OverflowError: an offset past year 1 or 9999
        raise typer.BadParameter(
            "not an ISO 8601 date-time (e.g. 2026-12-01T00:00:00Z)", param_hint="--renews-at"
        ) from None
    if moment.year not in RENEWAL_YEARS:
        raise typer.BadParameter(
            f"must be in the years {RENEWAL_YEARS.start} to {RENEWAL_YEARS.stop - 1}",
            param_hint="--renews-at",
        )
    return moment


@billing_app.command("set")
def billing_set(
    user_id: Annotated[uuid.UUID, typer.Option("--user-id", help="The account's user id.")],
    status: Annotated[
        SubscriptionStatus, typer.Option("--status", help="The subscription's stored status.")
    ],
    renews_at: Annotated[
        str | None,
        typer.Option(
            "--renews-at",
            metavar="ISO8601",
            help="Renewal date-time in ISO 8601, e.g. 2026-12-01T00:00:00+03:00; without an "
            "offset it is UTC. Usage counts the month before it; once it has passed, ACTIVE and "
            "TRIAL read as EXPIRED.",
        ),
    ] = None,
    quota: Annotated[
        int | None,
        typer.Option("--quota", min=0, max=MAX_QUOTA, help="Commands allowed per billing period."),
    ] = None,
) -> None:
    """Record a subscription row for a user, as a billing sync would (the latest row counts)."""
    settings = load_settings_or_exit()
    renewal = _renewal_date(renews_at)

    async def record(session: AsyncSession) -> None:
        await billing.record_subscription(session, user_id, status, renewal, quota)

    try:
        _run_in_unit_of_work(settings, record)
    except NotFound:
        fail(f"no user with id {user_id}")
    typer.echo(f"recorded {status.value} for user {user_id}", err=True)


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
