"""deletion jobs: the operator alert as an outbox column; no job row names a user who is gone

Revision ID: 8e1d4b7a2c63
Revises: 5b8c2f7d9e14
Create Date: 2026-11-25 09:00:00

Besides the column, the rows written before: a job of a user whose account is gone forgets
the user's id, and an error text is cut to its exception's type (the text after it could name
the user's folder).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8e1d4b7a2c63"
down_revision: str | None = "5b8c2f7d9e14"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

jobs = sa.table(
    "deletion_jobs",
    sa.column("id", sa.Uuid()),
    sa.column("user_id", sa.Uuid()),
    sa.column("last_error", sa.String(200)),
)
users = sa.table("users", sa.column("id", sa.Uuid()))


def upgrade() -> None:
    with op.batch_alter_table("deletion_jobs") as batch:
        batch.add_column(
            sa.Column("alert_pending", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch.create_index("ix_deletion_jobs_alert_pending", ["alert_pending"])
    gone = ~sa.exists().where(users.c.id == jobs.c.user_id)
    op.execute(jobs.update().where(jobs.c.user_id.is_not(None), gone).values(user_id=None))
    connection = op.get_bind()
    errors = connection.execute(
        sa.select(jobs.c.id, jobs.c.last_error).where(jobs.c.last_error.like("%:%"))
    )
    for job_id, error in list(errors):
        connection.execute(
            jobs.update().where(jobs.c.id == job_id).values(last_error=error.split(":", 1)[0])
        )


def downgrade() -> None:
    with op.batch_alter_table("deletion_jobs") as batch:
        batch.drop_index("ix_deletion_jobs_alert_pending")
        batch.drop_column("alert_pending")
