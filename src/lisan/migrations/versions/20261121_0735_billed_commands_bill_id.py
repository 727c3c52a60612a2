"""billed commands: keyed by a bill id from (user, idempotency key), not the request id

Revision ID: 7c2b9e4d1a30
Revises: cfd467530aa2
Create Date: 2026-11-21 07:35:00
"""

from collections.abc import Sequence

from alembic import op

revision: str = "7c2b9e4d1a30"
down_revision: str | None = "cfd467530aa2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("billed_commands", schema=None) as batch_op:
        batch_op.alter_column("command_id", new_column_name="bill_id")


def downgrade() -> None:
    with op.batch_alter_table("billed_commands", schema=None) as batch_op:
        batch_op.alter_column("bill_id", new_column_name="command_id")
