"""Keep the live post count and the next scheduled publish time on the site state row

Revision ID: 0005_site_state_counts
Revises: 0004_search
Create Date: 2026-11-29 21:55:00

"""

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0005_site_state_counts"
down_revision = "0004_search"
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("live_count", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("next_publish_at", sa.DateTime(), nullable=True))
    now = datetime.now(UTC).replace(tzinfo=None)
    # A database that has posts but was never written since the state row arrived has none.
    op.get_bind().execute(
        sa.text(
            "INSERT INTO site_state (id, version, changed_at, live_count)"
            " SELECT 1, 1, :now, 0 WHERE NOT EXISTS (SELECT 1 FROM site_state)"
            " AND EXISTS (SELECT 1 FROM posts)"
        ),
        {"now": now},
    )
    op.get_bind().execute(
        sa.text(
            "UPDATE site_state SET"
            " live_count = (SELECT count(*) FROM posts"
            "   WHERE status = 'published' AND published_at <= :now),"
            " next_publish_at = (SELECT min(published_at) FROM posts"
            "   WHERE status = 'published' AND published_at > :now)"
        ),
        {"now": now},
    )


def downgrade():
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("next_publish_at")
        batch_op.drop_column("live_count")
