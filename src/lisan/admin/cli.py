"""`lisan admin ...`: the credentials of the audited admin routes, made and revoked from the
operator's shell (only a token's hash is stored)."""

from __future__ import annotations

from typing import Annotated

import typer

from lisan.admin import service as admin
from lisan.admin.models import Permission
from lisan.db.cli import fail, load_settings_or_exit, run_in_unit_of_work
from lisan.db.handle import Db

admin_app = typer.Typer(
    help="Admin credentials for the audited admin routes.", no_args_is_help=True
)

AdminName = Annotated[
    str, typer.Option("--name", help="Who holds the credential (1 to 64 characters).")
]


def _admin_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= 64:
        raise typer.BadParameter("must be 1 to 64 characters", param_hint="--name")
    return name


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

    async def create(db: Db) -> str:
        return await admin.create_credential(db, name, permission)

    try:
        token = run_in_unit_of_work(settings, create)
    except admin.CredentialNameTaken:
        fail(f"an admin credential named {name!r} exists; revoke it first")
    typer.echo(token)


@admin_app.command("revoke-token")
def admin_revoke_token(name: AdminName) -> None:
    """Revoke the admin credential with that name."""
    settings = load_settings_or_exit()
    name = _admin_name(name)

    async def revoke(db: Db) -> bool:
        return await admin.revoke_credential(db, name)

    if not run_in_unit_of_work(settings, revoke):
        fail(f"no live admin credential named {name!r}")
    typer.echo(f"revoked {name}", err=True)
