"""deletion jobs: at most one in flight per user; no foreign key, the job outlives the user

Revision ID: 3f8a1c6e2b90
Revises: 7c2b9e4d1a30
Create Date: 2026-11-23 23:59:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3f8a1c6e2b90"
down_revision: str | None = "7c2b9e4d1a30"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IN_FLIGHT = "status IN ('queued', 'running', 'retrying')"


def upgrade() -> None:
    op.create_table(
        "deletion_jobs",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("run_after", sa.DateTime(timezone=True), nullable=False),
        sa.Column("lease_until", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_error", sa.String(length=200), nullable=True),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'retrying', 'completed', 'failed')",
            name=op.f("ck_deletion_jobs_status"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deletion_jobs")),
    )
    op.create_index("ix_deletion_jobs_status_run_after", "deletion_jobs", ["status", "run_after"])
    op.create_index(
        "uq_deletion_jobs_user_in_flight",
        "deletion_jobs",
        ["user_id"],
        unique=True,
        postgresql_where=sa.text(IN_FLIGHT),
        sqlite_where=sa.text(IN_FLIGHT),
    )


def downgrade() -> None:
    op.drop_index("uq_deletion_jobs_user_in_flight", table_name="deletion_jobs")
    op.drop_index("ix_deletion_jobs_status_run_after", table_name="deletion_jobs")
    op.drop_table("deletion_jobs")
