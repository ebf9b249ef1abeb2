"""Full-text index of the posts readers cannot find, for the editor's search (SQLite only)

SQLite's `post_search` (0004_search) holds published posts only, so that a draft's words
never reach the readers' search. The editor searches every post: `draft_search` holds the
others (drafts, in review or not), with the same columns, tokenizer and prefixes, kept by
triggers on posts, post_topics and topics in the same way. A post is in exactly one of the
two tables: publishing moves it to `post_search`, unpublishing back here.

PostgreSQL needs nothing: `posts.search_vector` is kept for every post, whatever its state.

As with 0004, a later migration that rebuilds posts, post_topics or topics on SQLite must put
these triggers back (0011_post_identity_and_revisions shows how).

Revision ID: 0028_draft_search
Revises: 0027_pending_changes
Create Date: 2026-12-06 04:40:00

"""

from alembic import op

revision = "0028_draft_search"
down_revision = "0027_pending_changes"
branch_labels = None
depends_on = None

# The names of a post's topics, space-separated, for the FTS row of post `{post}`.
TOPICS = """coalesce((
    SELECT group_concat(t.name, ' ')
    FROM post_topics AS pt JOIN topics AS t ON t.id = pt.topic_id
    WHERE pt.post_id = {post}
), '')"""

INSERT_ROW = """INSERT INTO draft_search (rowid, title, summary, body, topics)
        SELECT new.id, new.title, new.summary, new.body_markdown, {topics}
        WHERE new.status <> 'published';""".format(topics=TOPICS.format(post="new.id"))

UPGRADE = [
    """CREATE VIRTUAL TABLE draft_search USING fts5(
        title, summary, body, topics,
        tokenize = 'porter unicode61 remove_diacritics 2',
        prefix = '2 3'
    )""",
    f"""CREATE TRIGGER draft_search_post_insert AFTER INSERT ON posts BEGIN
        {INSERT_ROW}
    END""",
    f"""CREATE TRIGGER draft_search_post_update
    AFTER UPDATE OF id, title, summary, body_markdown, status ON posts BEGIN
        DELETE FROM draft_search WHERE rowid = old.id;
        {INSERT_ROW}
    END""",
    """CREATE TRIGGER draft_search_post_delete AFTER DELETE ON posts BEGIN
        DELETE FROM draft_search WHERE rowid = old.id;
    END""",
    f"""CREATE TRIGGER draft_search_link_insert AFTER INSERT ON post_topics BEGIN
        UPDATE draft_search SET topics = {TOPICS.format(post="new.post_id")}
        WHERE rowid = new.post_id;
    END""",
    f"""CREATE TRIGGER draft_search_link_update
    AFTER UPDATE OF post_id, topic_id ON post_topics BEGIN
        UPDATE draft_search SET topics = {TOPICS.format(post="old.post_id")}
        WHERE rowid = old.post_id;
        UPDATE draft_search SET topics = {TOPICS.format(post="new.post_id")}
        WHERE rowid = new.post_id;
    END""",
    f"""CREATE TRIGGER draft_search_link_delete AFTER DELETE ON post_topics BEGIN
        UPDATE draft_search SET topics = {TOPICS.format(post="old.post_id")}
        WHERE rowid = old.post_id;
    END""",
    f"""CREATE TRIGGER draft_search_topic_rename AFTER UPDATE OF name ON topics BEGIN
        UPDATE draft_search SET topics = {TOPICS.format(post="draft_search.rowid")}
        WHERE rowid IN (SELECT post_id FROM post_topics WHERE topic_id = new.id);
    END""",
    f"""CREATE TRIGGER draft_search_topic_delete AFTER DELETE ON topics BEGIN
        UPDATE draft_search SET topics = {TOPICS.format(post="draft_search.rowid")}
        WHERE rowid IN (SELECT post_id FROM post_topics WHERE topic_id = old.id);
    END""",
    # Index the unpublished posts that exist already.
    f"""INSERT INTO draft_search (rowid, title, summary, body, topics)
        SELECT p.id, p.title, p.summary, p.body_markdown, {TOPICS.format(post="p.id")}
        FROM posts AS p WHERE p.status <> 'published'""",
]

DOWNGRADE = [
    "DROP TRIGGER IF EXISTS draft_search_topic_delete",
    "DROP TRIGGER IF EXISTS draft_search_topic_rename",
    "DROP TRIGGER IF EXISTS draft_search_link_delete",
    "DROP TRIGGER IF EXISTS draft_search_link_update",
    "DROP TRIGGER IF EXISTS draft_search_link_insert",
    "DROP TRIGGER IF EXISTS draft_search_post_delete",
    "DROP TRIGGER IF EXISTS draft_search_post_update",
    "DROP TRIGGER IF EXISTS draft_search_post_insert",
    "DROP TABLE IF EXISTS draft_search",
]


def upgrade() -> None:
    """Create and fill draft_search on SQLite."""
    if op.get_bind().dialect.name == "sqlite":
        for statement in UPGRADE:
            op.execute(statement)


def downgrade() -> None:
    """Drop draft_search and its triggers on SQLite."""
    if op.get_bind().dialect.name == "sqlite":
        for statement in DOWNGRADE:
            op.execute(statement)
