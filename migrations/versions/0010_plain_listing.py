"""Read the listing with plain queries: drop the page anchors, slot rows and stored topic
filter; keep published-post counts per topic and in all, by database triggers

The counts are of published posts, scheduled ones included: they change only when a write
changes a post's status or topics, each write by one per topic, however many posts there
are. Readers subtract the few published posts whose time has not come (blog/reading/listing.py).
Triggers count whoever writes (editor, import, demo loader, bench, plain SQL). A published
post's delete is counted before it happens, while its topic links still exist; the links its
delete cascades to find the post gone and count nothing.

As with the search triggers (0004), a later migration that rebuilds posts, post_topics or
topics on SQLite (a batch "recreate") drops these triggers and must create them again.

Revision ID: 0010_plain_listing
Revises: 0008_stored_topic_filter
Create Date: 2026-12-01 11:00:00

"""

import sqlalchemy as sa
from alembic import op

revision = "0010_plain_listing"
down_revision = "0008_stored_topic_filter"
branch_labels = None
depends_on = None

PUBLISHED = "'published'"
# How a change of a post's status moves the counts: +1, -1 or 0.
DELTA = f"((NEW.status = {PUBLISHED}) - (OLD.status = {PUBLISHED}))"
LINK_IS_PUBLISHED = "(SELECT status FROM posts WHERE id = {row}.post_id) = " + PUBLISHED

SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER listing_count_post_insert AFTER INSERT ON posts
    WHEN NEW.status = {PUBLISHED} BEGIN
        UPDATE site_state SET published_count = published_count + 1;
    END""",
    f"""CREATE TRIGGER listing_count_post_status AFTER UPDATE OF status ON posts
    WHEN OLD.status IS NOT NEW.status BEGIN
        UPDATE site_state SET published_count = published_count + {DELTA};
        UPDATE topics SET published_count = published_count + {DELTA}
            WHERE id IN (SELECT topic_id FROM post_topics WHERE post_id = NEW.id);
    END""",
    f"""CREATE TRIGGER listing_count_post_delete BEFORE DELETE ON posts
    WHEN OLD.status = {PUBLISHED} BEGIN
        UPDATE site_state SET published_count = published_count - 1;
        UPDATE topics SET published_count = published_count - 1
            WHERE id IN (SELECT topic_id FROM post_topics WHERE post_id = OLD.id);
    END""",
    f"""CREATE TRIGGER listing_count_link_insert AFTER INSERT ON post_topics
    WHEN {LINK_IS_PUBLISHED.format(row="NEW")} BEGIN
        UPDATE topics SET published_count = published_count + 1 WHERE id = NEW.topic_id;
    END""",
    f"""CREATE TRIGGER listing_count_link_delete AFTER DELETE ON post_topics
    WHEN {LINK_IS_PUBLISHED.format(row="OLD")} BEGIN
        UPDATE topics SET published_count = published_count - 1 WHERE id = OLD.topic_id;
    END""",
    f"""CREATE TRIGGER listing_count_link_update AFTER UPDATE OF post_id, topic_id ON post_topics
    BEGIN
        UPDATE topics SET published_count = published_count - 1
            WHERE id = OLD.topic_id AND {LINK_IS_PUBLISHED.format(row="OLD")};
        UPDATE topics SET published_count = published_count + 1
            WHERE id = NEW.topic_id AND {LINK_IS_PUBLISHED.format(row="NEW")};
    END""",
]
SQLITE_DROP = [
    f"DROP TRIGGER IF EXISTS listing_count_{name}"
    for name in (
        "post_insert",
        "post_status",
        "post_delete",
        "link_insert",
        "link_delete",
        "link_update",
    )
]

POSTGRESQL_TRIGGERS = [
    f"""CREATE FUNCTION listing_count_post() RETURNS trigger AS $$
    DECLARE
        delta integer;
        post integer;
    BEGIN
        IF TG_OP = 'INSERT' THEN
            delta := (NEW.status = {PUBLISHED})::integer;
        ELSIF TG_OP = 'UPDATE' THEN
            delta := (NEW.status = {PUBLISHED})::integer - (OLD.status = {PUBLISHED})::integer;
        ELSE
            delta := -(OLD.status = {PUBLISHED})::integer;
        END IF;
        IF delta <> 0 THEN
            post := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
            UPDATE site_state SET published_count = published_count + delta;
            UPDATE topics SET published_count = published_count + delta
                WHERE id IN (SELECT topic_id FROM post_topics WHERE post_id = post);
        END IF;
        RETURN CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END;
    END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER listing_count_post_write AFTER INSERT OR UPDATE OF status ON posts
    FOR EACH ROW EXECUTE FUNCTION listing_count_post()""",
    """CREATE TRIGGER listing_count_post_delete BEFORE DELETE ON posts
    FOR EACH ROW EXECUTE FUNCTION listing_count_post()""",
    f"""CREATE FUNCTION listing_count_link() RETURNS trigger AS $$
    BEGIN
        IF TG_OP IN ('DELETE', 'UPDATE') THEN
            UPDATE topics SET published_count = published_count - 1
                WHERE id = OLD.topic_id AND {LINK_IS_PUBLISHED.format(row="OLD")};
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
            UPDATE topics SET published_count = published_count + 1
                WHERE id = NEW.topic_id AND {LINK_IS_PUBLISHED.format(row="NEW")};
        END IF;
        RETURN NULL;
    END $$ LANGUAGE plpgsql""",
    """CREATE TRIGGER listing_count_link AFTER INSERT OR DELETE OR UPDATE OF post_id, topic_id
    ON post_topics FOR EACH ROW EXECUTE FUNCTION listing_count_link()""",
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS listing_count_post_write ON posts",
    "DROP TRIGGER IF EXISTS listing_count_post_delete ON posts",
    "DROP TRIGGER IF EXISTS listing_count_link ON post_topics",
    "DROP FUNCTION IF EXISTS listing_count_post()",
    "DROP FUNCTION IF EXISTS listing_count_link()",
]

COUNT_EXISTING = [
    f"""UPDATE topics SET published_count = (
        SELECT count(*) FROM post_topics JOIN posts ON posts.id = post_topics.post_id
        WHERE post_topics.topic_id = topics.id AND posts.status = {PUBLISHED})""",
    f"""UPDATE site_state SET published_count = (
        SELECT count(*) FROM posts WHERE status = {PUBLISHED})""",
]


def upgrade():
    op.drop_table("listing_slots")
    op.drop_table("listing_anchors")
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("topic_filter")
        batch_op.drop_column("live_count")
        batch_op.add_column(
            sa.Column("published_count", sa.Integer(), nullable=False, server_default="0")
        )
    # Not batch operations: topics carries the search index's triggers, which a rebuild drops.
    op.drop_column("topics", "live_count")
    op.add_column(
        "topics", sa.Column("published_count", sa.Integer(), nullable=False, server_default="0")
    )
    dialect = op.get_bind().dialect.name
    for statement in SQLITE_TRIGGERS if dialect == "sqlite" else POSTGRESQL_TRIGGERS:
        op.execute(statement)
    for statement in COUNT_EXISTING:
        op.execute(statement)


def downgrade():
    dialect = op.get_bind().dialect.name
    for statement in SQLITE_DROP if dialect == "sqlite" else POSTGRESQL_DROP:
        op.execute(statement)
    op.drop_column("topics", "published_count")
    op.add_column(
        "topics", sa.Column("live_count", sa.Integer(), nullable=False, server_default="0")
    )
    with op.batch_alter_table("site_state", schema=None) as batch_op:
        batch_op.drop_column("published_count")
        batch_op.add_column(
            sa.Column("live_count", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(sa.Column("topic_filter", sa.JSON(), nullable=True))
    op.create_table(
        "listing_anchors",
        sa.Column("topic_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("page", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("published_at", sa.DateTime(), nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("topic_id", "page", name=op.f("pk_listing_anchors")),
    )
    op.create_table(
        "listing_slots",
        sa.Column("slot", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("post_id", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("slot", name=op.f("pk_listing_slots")),
    )
    # The old code's counts and anchors come back empty: a passed publish time makes its
    # first request rebuild them, as it does when a scheduled post comes due.
    op.execute("UPDATE site_state SET next_publish_at = '2000-01-01 00:00:00'")
