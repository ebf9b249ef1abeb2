"""Author pages walk an index of their own: posts by author, status, publish time and id

An author's page counts their live posts and pages through them newest first. With only
posts.author_id indexed, both read every post of the author from the table (12 ms for the
count of an author with 8,700 posts among 100,000 on SQLite), and a rare author's last page
walked the whole listing index (28 ms). This index answers both from its own entries, and
it serves the foreign key as ix_posts_author_id did, so that one goes.

Revision ID: 0019_author_listing_index
Revises: 0018_post_seo_fields
Create Date: 2026-12-02 08:45:00

"""

from alembic import op

revision = "0019_author_listing_index"
down_revision = "0018_post_seo_fields"
branch_labels = None
depends_on = None


def upgrade():
    op.create_index(
        "ix_posts_author_listing", "posts", ["author_id", "status", "published_at", "id"]
    )
    op.drop_index("ix_posts_author_id", table_name="posts")


def downgrade():
    op.create_index("ix_posts_author_id", "posts", ["author_id"])
    op.drop_index("ix_posts_author_listing", table_name="posts")
