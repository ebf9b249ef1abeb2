"""Posts keep the paths they had on the site they were moved from: old_addresses

Each row is one path (as `blog.catalog.address_key` spells it) that answers with a 301 to its
post: a Jekyll permalink, a Hugo or Zola `path`, `url` or alias, a WordPress link. A new
table: no rebuild on either database.

Revision ID: 0023_old_addresses
Revises: 0022_post_authors
Create Date: 2026-12-06 01:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0023_old_addresses"
down_revision = "0022_post_authors"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "old_addresses",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("path", sa.String(length=500), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["post_id"],
            ["posts.id"],
            name=op.f("fk_old_addresses_post_id_posts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_old_addresses")),
        sa.UniqueConstraint("path", name=op.f("uq_old_addresses_path")),
    )
    op.create_index(op.f("ix_old_addresses_post_id"), "old_addresses", ["post_id"], unique=False)


def downgrade():
    op.drop_index(op.f("ix_old_addresses_post_id"), table_name="old_addresses")
    op.drop_table("old_addresses")
