"""Post ids are never reused, and every save keeps a revision

SQLite gives a new row the highest id in use plus one, so once the newest post was deleted
the next post took its id, and an editor's old tab could save into it. AUTOINCREMENT, which
stops that, can only be declared when a table is created: on SQLite the posts table is
rebuilt (env.py turns foreign keys off meanwhile) and its triggers, which a rebuild drops
(search 0004, listing counts 0010), are put back exactly as they were. PostgreSQL's sequences
never hand an id out twice.

post_revisions holds each saved state of a post; no foreign key ties it to posts, so the
history outlives a deleted post.

Revision ID: 0011_post_identity_revisions
Revises: 0009_lock_version
Create Date: 2026-12-01 17:30:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0011_post_identity_revisions"
down_revision = "0009_lock_version"
branch_labels = None
depends_on = None

TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger'"


def _rebuild_posts(autoincrement: bool) -> None:
    """Rebuild SQLite's posts table with or without AUTOINCREMENT, keeping every trigger.

    All of them are set aside during the rebuild, not only those on posts: SQLite checks the
    triggers of other tables that name posts (post_topics' counts) while it renames the copy.
    """
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        return
    triggers = bind.exec_driver_sql(TRIGGERS).all()
    for name, _ in triggers:
        bind.exec_driver_sql(f'DROP TRIGGER "{name}"')
    with op.batch_alter_table(
        "posts", recreate="always", table_kwargs={"sqlite_autoincrement": autoincrement}
    ):
        pass
    for _, statement in triggers:
        bind.exec_driver_sql(statement)


def upgrade():
    _rebuild_posts(autoincrement=True)
    op.create_table(
        "post_revisions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("editor_name", sa.String(length=120), nullable=False),
        sa.Column("lock_version", sa.Integer(), nullable=True),
        sa.Column("title", sa.String(length=300), nullable=False),
        sa.Column("slug", sa.String(length=200), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("body_markdown", sa.Text(), nullable=False),
        sa.Column("topics", sa.JSON(), nullable=False),
        sa.Column("author_name", sa.String(length=120), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("published_at", sa.DateTime(), nullable=True),
        sa.Column("updated_at", sa.DateTime(), nullable=True),
        sa.Column("image_alt", sa.String(length=500), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_revisions")),
        sqlite_autoincrement=True,
    )
    op.create_index("ix_post_revisions_post", "post_revisions", ["post_id", "id"])


def downgrade():
    op.drop_index("ix_post_revisions_post", table_name="post_revisions")
    op.drop_table("post_revisions")
    _rebuild_posts(autoincrement=False)
