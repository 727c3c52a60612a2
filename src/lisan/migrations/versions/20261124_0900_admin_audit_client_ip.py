"""admin: the audit row keeps the client IP; a credential name is unique among live ones only,
so a re-issued name is a new row and the revoked credential keeps its history

Revision ID: 9d4e7a1b5c20
Revises: 3f8a1c6e2b90
Create Date: 2026-11-24 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9d4e7a1b5c20"
down_revision: str | None = "3f8a1c6e2b90"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

LIVE_CREDENTIAL = "revoked_at IS NULL"


def upgrade() -> None:
    with op.batch_alter_table("admin_audit_events") as batch:
        batch.add_column(sa.Column("client_ip", sa.String(length=45), nullable=True))
    with op.batch_alter_table("admin_credentials") as batch:
        batch.drop_constraint("uq_admin_credentials_name", type_="unique")
    op.create_index(
        "uq_admin_credentials_live_name",
        "admin_credentials",
        ["name"],
        unique=True,
        postgresql_where=sa.text(LIVE_CREDENTIAL),
        sqlite_where=sa.text(LIVE_CREDENTIAL),
    )


def downgrade() -> None:
    # Only possible while no name has been re-issued (a name then has several rows).
    op.drop_index("uq_admin_credentials_live_name", table_name="admin_credentials")
    with op.batch_alter_table("admin_credentials") as batch:
        batch.create_unique_constraint("uq_admin_credentials_name", ["name"])
    with op.batch_alter_table("admin_audit_events") as batch:
        batch.drop_column("client_ip")
