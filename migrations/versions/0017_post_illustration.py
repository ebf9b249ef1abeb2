"""Posts can name their drawing by hand: posts.illustration (the `illustration:` spec)

Empty for every existing post, so their drawings stay as their words chose them. A column
added with a constant default: no table rebuild on either database, and no trigger moves.

Revision ID: 0017_post_illustration
Revises: 0016_author_profiles
Create Date: 2026-12-02 08:30:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0017_post_illustration"
down_revision = "0016_author_profiles"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add posts.illustration, empty for every post."""
    op.add_column(
        "posts",
        sa.Column("illustration", sa.String(300), nullable=False, server_default=""),
    )


def downgrade() -> None:
    """Drop posts.illustration (the drawings go back to what the words choose). A plain
    DROP COLUMN on both databases (SQLite has it since 3.35): a batch rebuild of posts would
    trip over the triggers that name it."""
    op.drop_column("posts", "illustration")
