"""Revisions keep a post's pictures and flags: what a three-way merge compares

post_revisions gains image_sha256 and social_image_sha256 (the hash of each picture, "" for
none) and featured and editors_pick. A save based on an older version is merged with the
saves made since against the revision it started from; these columns let the merge tell who
changed a picture or a flag. NULL in revisions made before: unknown, so a merge over one of
those asks which to keep whenever the two sides differ. Nullable columns: no rebuild on
either database.

Revision ID: 0025_revision_pictures
Revises: 0024_editorial_roles
Create Date: 2026-12-06 03:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0025_revision_pictures"
down_revision = "0024_editorial_roles"
branch_labels = None
depends_on = None

COLUMNS = ("image_sha256", "social_image_sha256", "featured", "editors_pick")


def upgrade() -> None:
    """Add the four columns, NULL (unknown) for every revision made so far."""
    op.add_column("post_revisions", sa.Column("image_sha256", sa.String(64), nullable=True))
    op.add_column(
        "post_revisions", sa.Column("social_image_sha256", sa.String(64), nullable=True)
    )
    op.add_column("post_revisions", sa.Column("featured", sa.Boolean(), nullable=True))
    op.add_column("post_revisions", sa.Column("editors_pick", sa.Boolean(), nullable=True))


def downgrade() -> None:
    """Drop them again (plain DROP COLUMNs, as 0021's downgrade does)."""
    for name in reversed(COLUMNS):
        op.drop_column("post_revisions", name)
