"""The topic filter stored on the state row, so a reader's read of it is one primary-key read

Revision ID: 0008_stored_topic_filter
Revises: 0007_listing_slots
Create Date: 2026-11-30 04:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0008_stored_topic_filter"
down_revision = "0007_listing_slots"
branch_labels = None
depends_on = None

# The topics with live posts as [id, name, slug, live count, position] lists, per dialect.
AGGREGATES = {
    "postgresql": "json_agg(json_build_array(id, name, slug, live_count, position))",
    "sqlite": "json_group_array(json_array(id, name, slug, live_count, position))",
}


def upgrade():
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.add_column(sa.Column("topic_filter", sa.JSON(), nullable=True))
    aggregate = AGGREGATES[op.get_bind().dialect.name]
    op.execute(
        f"UPDATE site_state SET topic_filter = "
        f"(SELECT {aggregate} FROM topics WHERE live_count > 0)"
    )


def downgrade():
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("topic_filter")
