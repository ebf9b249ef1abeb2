"""Co-authors: a post credits one or more authors, in order (post_authors)

post_authors links a post to each of its authors with their place; position 0 is the first
author, whom posts.author_id keeps naming, so cards read them from the row and an author's
page still walks ix_posts_author_listing for the posts they wrote first. The posts they
co-wrote (position > 0) come from ix_post_authors_author. Every existing post's author
becomes its first and only author.

post_revisions.authors keeps every author's name in order: empty for revisions made before,
which name their one author in author_name.

Neither table is rebuilt: posts carries the search and count triggers (0004, 0010), and the
new column has a constant default.

Revision ID: 0022_post_authors
Revises: 0021_revision_illustration
Create Date: 2026-12-06 00:30:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0022_post_authors"
down_revision = "0021_revision_illustration"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Add post_authors, filled with each post's author, and post_revisions.authors."""
    op.create_table(
        "post_authors",
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("author_id", sa.Integer(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["author_id"], ["authors.id"], name=op.f("fk_post_authors_author_id_authors")
        ),
        sa.ForeignKeyConstraint(
            ["post_id"],
            ["posts.id"],
            name=op.f("fk_post_authors_post_id_posts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("post_id", "author_id", name=op.f("pk_post_authors")),
    )
    op.create_index("ix_post_authors_author", "post_authors", ["author_id", "position", "post_id"])
    op.execute(
        "INSERT INTO post_authors (post_id, author_id, position) SELECT id, author_id, 0 FROM posts"
    )
    with op.batch_alter_table("post_revisions") as batch_op:  # an ALTER, no rebuild
        batch_op.add_column(sa.Column("authors", sa.JSON(), nullable=False, server_default="[]"))


def downgrade() -> None:
    """Drop both (posts.author_id still names each post's first author)."""
    op.drop_column("post_revisions", "authors")  # a plain DROP COLUMN, as 0021 does
    op.drop_index("ix_post_authors_author", table_name="post_authors")
    op.drop_table("post_authors")
