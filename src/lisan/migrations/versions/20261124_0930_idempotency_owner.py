"""idempotency: each claim's owner token, so only its holder may finish or release the key

Revision ID: 5b8c2f7d9e14
Revises: 9d4e7a1b5c20
Create Date: 2026-11-24 09:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5b8c2f7d9e14"
down_revision: str | None = "9d4e7a1b5c20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("idempotency_records") as batch:
        batch.add_column(sa.Column("owner", sa.Uuid(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("idempotency_records") as batch:
        batch.drop_column("owner")
