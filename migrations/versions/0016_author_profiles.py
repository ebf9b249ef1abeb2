"""Authors get a profile: a short bio, their own link and an avatar image

bio is Text, NOT NULL, '' by default (the server default fills existing rows in the same
statement); url is their own link, optional; avatar_image_id points at an uploaded image
and is cleared when that image is deleted. No trigger watches authors, so SQLite's rebuild
of the table for the foreign key leaves every trigger where it was.

Revision ID: 0016_author_profiles
Revises: 0015_image_renditions
Create Date: 2026-12-02 08:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0016_author_profiles"
down_revision = "0015_image_renditions"
branch_labels = None
depends_on = None

AVATAR_FK = "fk_authors_avatar_image_id_images"


def upgrade():
    with op.batch_alter_table("authors") as batch_op:
        batch_op.add_column(sa.Column("bio", sa.Text(), nullable=False, server_default=""))
        batch_op.add_column(sa.Column("url", sa.String(length=500), nullable=True))
        batch_op.add_column(sa.Column("avatar_image_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            AVATAR_FK, "images", ["avatar_image_id"], ["id"], ondelete="SET NULL"
        )


def downgrade():
    with op.batch_alter_table("authors") as batch_op:
        batch_op.drop_constraint(AVATAR_FK, type_="foreignkey")
        batch_op.drop_column("avatar_image_id")
        batch_op.drop_column("url")
        batch_op.drop_column("bio")
