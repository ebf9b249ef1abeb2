"""An editorial team: roles, review, draft links and account links

editors.role is writer, editor or admin; every account made before it is an admin (the server
default fills existing rows). posts.created_by_id names the account that created a post (its
writer; NULL for posts made before, and when that account is gone) and posts.review_state
where a draft stands in review ('' for none). post_events keeps each change of a post's state
with who and when; draft_links the SHA-256 of each private draft link's token (deleted with
its post); account_links the one-time invitations and password resets.

SQLite gives a new column a named foreign key only by rebuilding the table: posts is rebuilt
with its AUTOINCREMENT, every trigger of the database set aside and put back as it was (a
rebuild drops them), as 0018 does. PostgreSQL adds everything in place.

Revision ID: 0024_editorial_roles
Revises: 0023_old_addresses
Create Date: 2026-12-03 09:00:00

"""

from collections.abc import Callable

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations

revision = "0024_editorial_roles"
down_revision = "0023_old_addresses"
branch_labels = None
depends_on = None

CREATED_BY_FK = "fk_posts_created_by_id_editors"
CREATED_BY_INDEX = "ix_posts_created_by_id"
REVIEW_CHECK = "ck_posts_review_state"
ROLE_CHECK = "ck_editors_role"
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
    with op.batch_alter_table("editors") as batch_op:
        batch_op.add_column(
            sa.Column("role", sa.String(length=16), nullable=False, server_default="admin")
        )
        batch_op.create_check_constraint(op.f(ROLE_CHECK), "role IN ('writer', 'editor', 'admin')")

    def add(batch_op: BatchOperations) -> None:
        batch_op.add_column(sa.Column("created_by_id", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column("review_state", sa.String(length=16), nullable=False, server_default="")
        )
        batch_op.create_foreign_key(
            CREATED_BY_FK, "editors", ["created_by_id"], ["id"], ondelete="SET NULL"
        )
        batch_op.create_index(CREATED_BY_INDEX, ["created_by_id"])
        batch_op.create_check_constraint(
            op.f(REVIEW_CHECK),
            "review_state IN ('', 'in-review', 'sent-back')",
        )

    _change_posts(add)

    op.create_table(
        "post_events",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("editor_name", sa.String(length=120), nullable=False),
        sa.Column("note", sa.Text(), nullable=False, server_default=""),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_post_events")),
    )
    op.create_index("ix_post_events_post", "post_events", ["post_id", "id"], unique=False)

    op.create_table(
        "draft_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_by_name", sa.String(length=120), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["post_id"],
            ["posts.id"],
            name=op.f("fk_draft_links_post_id_posts"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_draft_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_draft_links_token_hash")),
    )
    op.create_index(op.f("ix_draft_links_post_id"), "draft_links", ["post_id"], unique=False)

    op.create_table(
        "account_links",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("email", sa.String(length=254), nullable=False),
        sa.Column("role", sa.String(length=16), nullable=True),
        sa.Column("editor_id", sa.Integer(), nullable=True),
        sa.Column("created_by_name", sa.String(length=120), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=False),
        sa.Column("used_at", sa.DateTime(), nullable=True),
        sa.CheckConstraint("purpose IN ('invite', 'reset')", name=op.f("ck_account_links_purpose")),
        sa.ForeignKeyConstraint(
            ["editor_id"],
            ["editors.id"],
            name=op.f("fk_account_links_editor_id_editors"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_account_links")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_account_links_token_hash")),
    )
    op.create_index(
        op.f("ix_account_links_editor_id"), "account_links", ["editor_id"], unique=False
    )


def downgrade():
    op.drop_index(op.f("ix_account_links_editor_id"), table_name="account_links")
    op.drop_table("account_links")
    op.drop_index(op.f("ix_draft_links_post_id"), table_name="draft_links")
    op.drop_table("draft_links")
    op.drop_index("ix_post_events_post", table_name="post_events")
    op.drop_table("post_events")

    def drop(batch_op: BatchOperations) -> None:
        batch_op.drop_constraint(op.f(REVIEW_CHECK), type_="check")
        batch_op.drop_index(CREATED_BY_INDEX)
        batch_op.drop_constraint(CREATED_BY_FK, type_="foreignkey")
        batch_op.drop_column("review_state")
        batch_op.drop_column("created_by_id")

    _change_posts(drop)
    with op.batch_alter_table("editors") as batch_op:
        batch_op.drop_constraint(op.f(ROLE_CHECK), type_="check")
        batch_op.drop_column("role")
