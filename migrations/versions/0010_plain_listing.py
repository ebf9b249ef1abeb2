"""Read the listing with plain queries: drop the page anchors, the slot rows and the kept counts

Revision ID: 0010_plain_listing
Revises: 0008_stored_topic_filter
Create Date: 2026-12-01 11:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0010_plain_listing"
down_revision = "0008_stored_topic_filter"
branch_labels = None
depends_on = None


def upgrade():
    op.drop_table("listing_slots")
    op.drop_table("listing_anchors")
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("topic_filter")
        batch_op.drop_column("live_count")
    # Not a batch rebuild: topics carries the search index's triggers, which a rebuild drops.
    op.drop_column("topics", "live_count")


def downgrade():
    op.add_column(
        "topics", sa.Column("live_count", sa.Integer(), nullable=False, server_default="0")
    )
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("live_count", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("topic_filter", sa.JSON(), nullable=True))
    op.create_table(
        "listing_anchors",
        sa.Column("topic_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("page", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("published_at", sa.DateTime(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("topic_id", "page", name=op.f("pk_listing_anchors")),
    )
    op.create_table(
        "listing_slots",
        sa.Column("slot", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("slot", name=op.f("pk_listing_slots")),
    )
    # The counts and anchors come back empty: a passed publish time makes the first request
    # after the downgrade rebuild them, as the old code does for a scheduled post.
    op.execute("UPDATE site_state SET next_publish_at = '2000-01-01 00:00:00'")
