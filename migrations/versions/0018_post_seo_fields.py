"""Posts get an optional meta description and social image, for search engines and link previews

posts.meta_description is Text, NOT NULL, '' by default (the server default fills existing
rows in the same statement; '' means "use the summary"); post_revisions keeps it too, so a
revision holds it and a restore brings it back. posts.social_image_id points at an uploaded
image and is cleared when that image is deleted (NULL means "use the post's picture").

SQLite gives a new column a named foreign key only by rebuilding the table: posts is
rebuilt with its AUTOINCREMENT (0011), every trigger of the database set aside and put back
as it was (a rebuild drops them), as 0014 does. PostgreSQL adds both in place.

Revision ID: 0018_post_seo_fields
Revises: 0017_post_illustration
Create Date: 2026-12-02 08:20:00

"""

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

revision = "0018_post_seo_fields"
down_revision = "0017_post_illustration"
branch_labels = None
depends_on = None

SOCIAL_FK = "fk_posts_social_image_id_images"
SOCIAL_INDEX = "ix_posts_social_image_id"
TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"


def _change_posts(change: Callable[[BatchOperations], None]) -> None:
    """Apply `change` to posts: in place on PostgreSQL; on SQLite by a rebuild that keeps
    AUTOINCREMENT and every trigger of the database (those of other tables name posts too)."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        with op.batch_alter_table("posts") as batch_op:
            change(batch_op)
        return
    triggers = bind.exec_driver_sql(TRIGGERS).all()
    for name, _ in triggers:
        bind.exec_driver_sql(f'DROP TRIGGER "{name}"')
    with op.batch_alter_table(
        "posts", recreate="always", table_kwargs={"sqlite_autoincrement": True}
    ) as batch_op:
        change(batch_op)
    for _, statement in triggers:
        bind.exec_driver_sql(statement)


def upgrade():
    with op.batch_alter_table("post_revisions") as batch_op:
        batch_op.add_column(
            sa.Column("meta_description", sa.Text(), nullable=False, server_default="")
        )

    def add(batch_op: BatchOperations) -> None:
        batch_op.add_column(
            sa.Column("meta_description", sa.Text(), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("social_image_id", sa.Integer(), nullable=True))
        batch_op.create_foreign_key(
            SOCIAL_FK, "images", ["social_image_id"], ["id"], ondelete="SET NULL"
        )
        batch_op.create_index(SOCIAL_INDEX, ["social_image_id"])

    _change_posts(add)


def downgrade():
    def drop(batch_op: BatchOperations) -> None:
        batch_op.drop_index(SOCIAL_INDEX)
        batch_op.drop_constraint(SOCIAL_FK, type_="foreignkey")
        batch_op.drop_column("social_image_id")
        batch_op.drop_column("meta_description")

    _change_posts(drop)
    with op.batch_alter_table("post_revisions") as batch_op:
        batch_op.drop_column("meta_description")
