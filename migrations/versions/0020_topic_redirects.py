"""Topics can be renamed, merged and described: old topic addresses answer 301

topic_redirects keeps each address a topic had before a rename or a merge, pointing at the
topic (never at its next address, so two renames make no chain). topics.description is the
short text a topic page shows under its heading.

The column is added without a table rebuild: topics carries the search and count triggers
(0004, 0010), which a SQLite rebuild would drop.

Revision ID: 0020_topic_redirects
Revises: 0019_author_listing_index
Create Date: 2026-12-02 08:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0020_topic_redirects"
down_revision = "0019_author_listing_index"
branch_labels = None
depends_on = None


def upgrade():
    op.add_column(
        "topics", sa.Column("description", sa.Text(), nullable=False, server_default="")
    )
    op.create_table(
        "topic_redirects",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("old_slug", sa.String(length=80), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["topic_id"],
            ["topics.id"],
            name=op.f("fk_topic_redirects_topic_id_topics"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_topic_redirects")),
        sa.UniqueConstraint("old_slug", name=op.f("uq_topic_redirects_old_slug")),
    )
    op.create_index(
        op.f("ix_topic_redirects_topic_id"), "topic_redirects", ["topic_id"], unique=False
    )


def downgrade():
    op.drop_index(op.f("ix_topic_redirects_topic_id"), table_name="topic_redirects")
    op.drop_table("topic_redirects")
    op.drop_column("topics", "description")
