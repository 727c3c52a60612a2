"""commands: idempotency records

Revision ID: cfd467530aa2
Revises: 3ed3c651b49b
Create Date: 2026-11-21 06:56:10.090680
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "cfd467530aa2"
down_revision: str | None = "3ed3c651b49b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "idempotency_records",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.Uuid(), nullable=False),
        sa.Column("body_hash", sa.LargeBinary(length=32), nullable=False),
        sa.Column("state", sa.String(length=16), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=False),
        sa.Column("response_status", sa.Integer(), nullable=True),
        sa.Column("response_body", sa.LargeBinary(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_idempotency_records_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", "key", name=op.f("pk_idempotency_records")),
    )
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.create_index("ix_idempotency_records_expires_at", ["expires_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("idempotency_records", schema=None) as batch_op:
        batch_op.drop_index("ix_idempotency_records_expires_at")

    op.drop_table("idempotency_records")
