"""Draft changes of a live post can be scheduled: pending_changes.go_live_at

When set, the changes replace the live text by themselves at that time (the first request
after it applies them, as the first request after a scheduled post's time publishes it);
readers keep the live text until then.

Revision ID: 0029_scheduled_changes
Revises: 0028_draft_search
Create Date: 2026-12-06 09:40:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0029_scheduled_changes"
down_revision = "0028_draft_search"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add the nullable go-live time."""
    with op.batch_alter_table("pending_changes") as batch:
        batch.add_column(sa.Column("go_live_at", sa.DateTime(), nullable=True))


def downgrade() -> None:
    """Drop it: scheduled changes become plain draft changes."""
    with op.batch_alter_table("pending_changes") as batch:
        batch.drop_column("go_live_at")
