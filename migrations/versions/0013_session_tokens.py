"""Editors' session tokens: logging out, logging in or a new password ends older sessions

Each account gets a random token that its session cookie carries; existing accounts get one
each, so sessions opened before this migration end (their cookies carry none).

Revision ID: 0013_session_tokens
Revises: 0012_trash
Create Date: 2026-12-01 18:05:00

"""

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0013_session_tokens"
down_revision = "0012_trash"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("editors") as batch_op:
        batch_op.add_column(sa.Column("session_token", sa.String(length=64), nullable=True))
    bind = op.get_bind()
    editors = sa.table("editors", sa.column("id", sa.Integer), sa.column("session_token"))
    for (editor_id,) in bind.execute(sa.select(editors.c.id)).all():
        bind.execute(
            editors.update()
            .where(editors.c.id == editor_id)
            .values(session_token=secrets.token_urlsafe(24))
        )
    with op.batch_alter_table("editors") as batch_op:
        batch_op.alter_column("session_token", existing_type=sa.String(length=64), nullable=False)


def downgrade():
    with op.batch_alter_table("editors") as batch_op:
        batch_op.drop_column("session_token")
