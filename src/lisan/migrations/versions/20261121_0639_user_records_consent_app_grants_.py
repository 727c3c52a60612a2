"""user records: consent, app grants, vocabulary, command events, billing

Revision ID: 3ed3c651b49b
Revises: a7df23df71de
Create Date: 2026-11-21 06:39:31.943351
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3ed3c651b49b"
down_revision: str | None = "a7df23df71de"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "app_grants",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("package_name", sa.String(length=255), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_app_grants_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_app_grants")),
    )
    with op.batch_alter_table("app_grants", schema=None) as batch_op:
        batch_op.create_index(
            "ix_app_grants_user_package", ["user_id", "package_name", "id"], unique=False
        )

    op.create_table(
        "billed_commands",
        sa.Column("command_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("billed_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_billed_commands_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("command_id", name=op.f("pk_billed_commands")),
    )
    with op.batch_alter_table("billed_commands", schema=None) as batch_op:
        batch_op.create_index(
            "ix_billed_commands_user_billed", ["user_id", "billed_at"], unique=False
        )

    op.create_table(
        "command_events",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=True),
        sa.Column("server_timings", sa.JSON(), nullable=True),
        sa.Column("outcome", sa.String(length=16), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("client_timings", sa.JSON(), nullable=True),
        sa.Column("reported_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_command_events_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_command_events")),
    )
    with op.batch_alter_table("command_events", schema=None) as batch_op:
        batch_op.create_index(
            "ix_command_events_user_created", ["user_id", "created_at"], unique=False
        )

    op.create_table(
        "consent_grants",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("scope", sa.String(length=64), nullable=False),
        sa.Column("granted", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_consent_grants_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_consent_grants")),
    )
    with op.batch_alter_table("consent_grants", schema=None) as batch_op:
        batch_op.create_index(
            "ix_consent_grants_user_scope", ["user_id", "scope", "id"], unique=False
        )

    op.create_table(
        "subscriptions",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("status", sa.String(length=32), nullable=False),
        sa.Column("renews_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("command_quota", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_subscriptions_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_subscriptions")),
    )
    with op.batch_alter_table("subscriptions", schema=None) as batch_op:
        batch_op.create_index("ix_subscriptions_user_id", ["user_id", "id"], unique=False)

    op.create_table(
        "vocabulary_counts",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("term_count", sa.Integer(), nullable=False),
        sa.CheckConstraint("term_count >= 0", name=op.f("ck_vocabulary_counts_term_count")),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_vocabulary_counts_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("user_id", name=op.f("pk_vocabulary_counts")),
    )
    op.create_table(
        "vocabulary_terms",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("term", sa.String(length=64), nullable=False),
        sa.Column("term_key", sa.String(length=256), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('contact', 'app', 'custom')", name=op.f("ck_vocabulary_terms_kind")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["users.id"],
            name=op.f("fk_vocabulary_terms_user_id_users"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_vocabulary_terms")),
        sa.UniqueConstraint("user_id", "term_key", name="uq_vocabulary_terms_user_term_key"),
    )
    with op.batch_alter_table("vocabulary_terms", schema=None) as batch_op:
        batch_op.create_index(
            "ix_vocabulary_terms_user_created", ["user_id", "created_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("vocabulary_terms", schema=None) as batch_op:
        batch_op.drop_index("ix_vocabulary_terms_user_created")

    op.drop_table("vocabulary_terms")
    op.drop_table("vocabulary_counts")
    with op.batch_alter_table("subscriptions", schema=None) as batch_op:
        batch_op.drop_index("ix_subscriptions_user_id")

    op.drop_table("subscriptions")
    with op.batch_alter_table("consent_grants", schema=None) as batch_op:
        batch_op.drop_index("ix_consent_grants_user_scope")

    op.drop_table("consent_grants")
    with op.batch_alter_table("command_events", schema=None) as batch_op:
        batch_op.drop_index("ix_command_events_user_created")

    op.drop_table("command_events")
    with op.batch_alter_table("billed_commands", schema=None) as batch_op:
        batch_op.drop_index("ix_billed_commands_user_billed")

    op.drop_table("billed_commands")
    with op.batch_alter_table("app_grants", schema=None) as batch_op:
        batch_op.drop_index("ix_app_grants_user_package")

    op.drop_table("app_grants")
