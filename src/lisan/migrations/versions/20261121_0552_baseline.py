"""baseline

Revision ID: 5af28f387e16
Revises:
Create Date: 2026-11-21 05:52:27.030029
"""

from collections.abc import Sequence

revision: str = "5af28f387e16"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
