"""Resized copies of uploaded images (480, 960 and 1600 px wide, WebP and the original format)

Copies are made by the image route the first time a page asks for one, so images stored
before this migration get theirs the same way: nothing to fill in here.

Revision ID: 0015_image_renditions
Revises: 0014_post_uid
Create Date: 2026-12-02 08:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0015_image_renditions"
down_revision = "0014_post_uid"
branch_labels = None
depends_on = None


def upgrade():
    op.create_table(
        "image_renditions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("image_id", sa.Integer(), nullable=False),
        sa.Column("width", sa.Integer(), nullable=False),
        sa.Column("height", sa.Integer(), nullable=False),
        sa.Column("content_type", sa.String(length=32), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("byte_size", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["image_id"],
            ["images.id"],
            name=op.f("fk_image_renditions_image_id_images"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_image_renditions")),
        sa.UniqueConstraint(
            "image_id", "width", "content_type", name=op.f("uq_image_renditions_image_id")
        ),
    )


def downgrade():
    op.drop_table("image_renditions")
