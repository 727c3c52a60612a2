"""identity: users, sessions, admin credentials, audit

Revision ID: a7df23df71de
Revises: 5af28f387e16
Create Date: 2026-11-21 06:01:47.308005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7df23df71de"
down_revision: str | None = "5af28f387e16"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "admin_credentials",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(length=32), nullable=False),
        sa.Column("permissions", sa.String(length=256), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admin_credentials")),
        sa.UniqueConstraint("name", name=op.f("uq_admin_credentials_name")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_admin_credentials_token_hash")),
    )
    op.create_table(
        "users",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("install_id", sa.String(length=128), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("locale", sa.String(length=8), nullable=False),
        sa.Column("speech_rate", sa.Integer(), nullable=False),
        sa.Column("wake_word", sa.String(length=64), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint("locale IN ('am-ET', 'en-US')", name=op.f("ck_users_locale")),
        sa.CheckConstraint(
            "status IN ('active', 'suspended', 'deleted')", name=op.f("ck_users_status")
        ),
        sa.CheckConstraint("speech_rate >= 1", name=op.f("ck_users_speech_rate")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_users")),
        sa.UniqueConstraint("install_id", name=op.f("uq_users_install_id")),
    )
    op.create_table(
        "admin_audit_events",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("admin_credential_id", sa.Uuid(), nullable=True),
        sa.Column("admin_name", sa.String(length=64), nullable=True),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("target", sa.String(length=128), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("request_id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["admin_credential_id"],
            ["admin_credentials.id"],
            name=op.f("fk_admin_audit_events_admin_credential_id_admin_credentials"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_admin_audit_events")),
    )
    with op.batch_alter_table("admin_audit_events", schema=None) as batch_op:
        batch_op.create_index("ix_admin_audit_events_created_at", ["created_at"], unique=False)

    op.create_table(
        "sessions",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("install_id", sa.String(length=128), nullable=False),
        sa.Column("token_hash", sa.LargeBinary(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name=op.f("fk_sessions_user_id_users"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_sessions_token_hash")),
    )
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.create_index("ix_sessions_user_id", ["user_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("sessions", schema=None) as batch_op:
        batch_op.drop_index("ix_sessions_user_id")

    op.drop_table("sessions")
    with op.batch_alter_table("admin_audit_events", schema=None) as batch_op:
        batch_op.drop_index("ix_admin_audit_events_created_at")

    op.drop_table("admin_audit_events")
    op.drop_table("users")
    op.drop_table("admin_credentials")
