"""Full-text search index over posts, kept current by database triggers

SQLite: an FTS5 table `post_search` (rowid = posts.id; title, summary, body, topics) with
the porter stemmer. PostgreSQL: a weighted `posts.search_vector` tsvector with a GIN index.
On both, triggers on posts, post_topics and topics keep the index in step with every write,
whoever makes it (editor, import, demo loader, bench, plain SQL).

Order matters on SQLite: a batch "recreate" of posts, post_topics or topics (which Alembic
does for a new foreign key, a dropped column or a changed type) drops that table's triggers
with it. So this revision runs after every revision that rebuilds those tables (0002_editors
rebuilds posts), and a later migration that rebuilds one must create its search triggers again.

Revision ID: 0004_search
Revises: 0002_editors
Create Date: 2026-11-29 21:30:00

"""

from alembic import op

# revision identifiers, used by Alembic.
revision = "0004_search"
down_revision = "0002_editors"
branch_labels = None
# 0002_editors rebuilds posts on SQLite: the triggers must be created after it.
depends_on = "0002_editors"


# --- SQLite: FTS5 ---------------------------------------------------------------------------

# The names of a post's topics, space-separated, for the FTS row of post `{post}`.
SQLITE_TOPICS = """coalesce((
    SELECT group_concat(t.name, ' ')
    FROM post_topics AS pt JOIN topics AS t ON t.id = pt.topic_id
    WHERE pt.post_id = {post}
), '')"""

# Only published posts are indexed: a draft's text never reaches search, and the index holds
# just what readers may find (a post scheduled for later is left out at query time).
SQLITE_INSERT_ROW = """INSERT INTO post_search (rowid, title, summary, body, topics)
        SELECT new.id, new.title, new.summary, new.body_markdown, {topics}
        WHERE new.status = 'published';""".format(topics=SQLITE_TOPICS.format(post="new.id"))

SQLITE_UPGRADE = [
    # A table that keeps its own copy of the text: snippet() needs it, and a post's topics
    # are not a column of posts. Prefix indexes make the search-as-you-type queries cheap.
    """CREATE VIRTUAL TABLE post_search USING fts5(
        title, summary, body, topics,
        tokenize = 'porter unicode61 remove_diacritics 2',
        prefix = '2 3'
    )""",
    # Ranking joins every match to its post for the publish date. This narrow index answers
    # that without reading the wide row (whose body spills onto overflow pages).
    "CREATE INDEX ix_posts_search_live ON posts (id, status, published_at)",
    f"""CREATE TRIGGER post_search_post_insert AFTER INSERT ON posts BEGIN
        {SQLITE_INSERT_ROW}
    END""",
    f"""CREATE TRIGGER post_search_post_update
    AFTER UPDATE OF id, title, summary, body_markdown, status ON posts BEGIN
        DELETE FROM post_search WHERE rowid = old.id;
        {SQLITE_INSERT_ROW}
    END""",
    """CREATE TRIGGER post_search_post_delete AFTER DELETE ON posts BEGIN
        DELETE FROM post_search WHERE rowid = old.id;
    END""",
    f"""CREATE TRIGGER post_search_link_insert AFTER INSERT ON post_topics BEGIN
        UPDATE post_search SET topics = {SQLITE_TOPICS.format(post="new.post_id")}
        WHERE rowid = new.post_id;
    END""",
    f"""CREATE TRIGGER post_search_link_update
    AFTER UPDATE OF post_id, topic_id ON post_topics BEGIN
        UPDATE post_search SET topics = {SQLITE_TOPICS.format(post="old.post_id")}
        WHERE rowid = old.post_id;
        UPDATE post_search SET topics = {SQLITE_TOPICS.format(post="new.post_id")}
        WHERE rowid = new.post_id;
    END""",
    f"""CREATE TRIGGER post_search_link_delete AFTER DELETE ON post_topics BEGIN
        UPDATE post_search SET topics = {SQLITE_TOPICS.format(post="old.post_id")}
        WHERE rowid = old.post_id;
    END""",
    f"""CREATE TRIGGER post_search_topic_rename AFTER UPDATE OF name ON topics BEGIN
        UPDATE post_search SET topics = {SQLITE_TOPICS.format(post="post_search.rowid")}
        WHERE rowid IN (SELECT post_id FROM post_topics WHERE topic_id = new.id);
    END""",
    # With foreign keys on, deleting a topic deletes its links and the link trigger runs;
    # this one covers a connection that left foreign keys off.
    f"""CREATE TRIGGER post_search_topic_delete AFTER DELETE ON topics BEGIN
        UPDATE post_search SET topics = {SQLITE_TOPICS.format(post="post_search.rowid")}
        WHERE rowid IN (SELECT post_id FROM post_topics WHERE topic_id = old.id);
    END""",
    # Index the published posts that exist already.
    f"""INSERT INTO post_search (rowid, title, summary, body, topics)
        SELECT p.id, p.title, p.summary, p.body_markdown, {SQLITE_TOPICS.format(post="p.id")}
        FROM posts AS p WHERE p.status = 'published'""",
]

SQLITE_DOWNGRADE = [
    "DROP TRIGGER IF EXISTS post_search_topic_delete",
    "DROP TRIGGER IF EXISTS post_search_topic_rename",
    "DROP TRIGGER IF EXISTS post_search_link_delete",
    "DROP TRIGGER IF EXISTS post_search_link_update",
    "DROP TRIGGER IF EXISTS post_search_link_insert",
    "DROP TRIGGER IF EXISTS post_search_post_delete",
    "DROP TRIGGER IF EXISTS post_search_post_update",
    "DROP TRIGGER IF EXISTS post_search_post_insert",
    "DROP TABLE IF EXISTS post_search",
    "DROP INDEX IF EXISTS ix_posts_search_live",
]


# --- PostgreSQL: a weighted tsvector ----------------------------------------------------------

POSTGRESQL_UPGRADE = [
    "ALTER TABLE posts ADD COLUMN search_vector tsvector",
    # Title A, summary and topic names B, body C: ts_rank_cd weighs matches by these.
    """CREATE FUNCTION post_search_vector(post_id integer, title text, summary text, body text)
    RETURNS tsvector LANGUAGE sql STABLE AS $$
        SELECT setweight(to_tsvector('english'::regconfig, coalesce(title, '')), 'A')
            || setweight(to_tsvector('english'::regconfig, coalesce(summary, '')), 'B')
            || setweight(to_tsvector('english'::regconfig, coalesce((
                SELECT string_agg(t.name, ' ')
                FROM post_topics AS pt JOIN topics AS t ON t.id = pt.topic_id
                WHERE pt.post_id = post_search_vector.post_id
            ), '')), 'B')
            || setweight(to_tsvector('english'::regconfig, coalesce(body, '')), 'C')
    $$""",
    """CREATE FUNCTION post_search_on_post() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        NEW.search_vector := post_search_vector(NEW.id, NEW.title, NEW.summary, NEW.body_markdown);
        RETURN NEW;
    END
    $$""",
    """CREATE TRIGGER post_search_post
    BEFORE INSERT OR UPDATE OF id, title, summary, body_markdown ON posts
    FOR EACH ROW EXECUTE FUNCTION post_search_on_post()""",
    """CREATE FUNCTION post_search_on_link() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        IF TG_OP <> 'INSERT' THEN
            UPDATE posts
            SET search_vector = post_search_vector(id, title, summary, body_markdown)
            WHERE id = OLD.post_id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
            UPDATE posts
            SET search_vector = post_search_vector(id, title, summary, body_markdown)
            WHERE id = NEW.post_id;
        END IF;
        RETURN NULL;
    END
    $$""",
    """CREATE TRIGGER post_search_link
    AFTER INSERT OR DELETE OR UPDATE OF post_id, topic_id ON post_topics
    FOR EACH ROW EXECUTE FUNCTION post_search_on_link()""",
    """CREATE FUNCTION post_search_on_topic() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE posts
        SET search_vector = post_search_vector(id, title, summary, body_markdown)
        WHERE id IN (SELECT post_id FROM post_topics WHERE topic_id = NEW.id);
        RETURN NULL;
    END
    $$""",
    """CREATE TRIGGER post_search_topic
    AFTER UPDATE OF name ON topics
    FOR EACH ROW WHEN (OLD.name IS DISTINCT FROM NEW.name)
    EXECUTE FUNCTION post_search_on_topic()""",
    # Index the posts that exist already, then build the index over the filled column.
    "UPDATE posts SET search_vector = post_search_vector(id, title, summary, body_markdown)",
    "CREATE INDEX ix_posts_search_vector ON posts USING gin (search_vector)",
]

POSTGRESQL_DOWNGRADE = [
    "DROP INDEX IF EXISTS ix_posts_search_vector",
    "DROP TRIGGER IF EXISTS post_search_topic ON topics",
    "DROP TRIGGER IF EXISTS post_search_link ON post_topics",
    "DROP TRIGGER IF EXISTS post_search_post ON posts",
    "DROP FUNCTION IF EXISTS post_search_on_topic()",
    "DROP FUNCTION IF EXISTS post_search_on_link()",
    "DROP FUNCTION IF EXISTS post_search_on_post()",
    "DROP FUNCTION IF EXISTS post_search_vector(integer, text, text, text)",
    "ALTER TABLE posts DROP COLUMN IF EXISTS search_vector",
]


def _statements(upgrade: bool) -> list[str]:
    """The statements for this database, or none for a database search does not support."""
    dialect = op.get_bind().dialect.name
    if dialect == "sqlite":
        return SQLITE_UPGRADE if upgrade else SQLITE_DOWNGRADE
    if dialect == "postgresql":
        return POSTGRESQL_UPGRADE if upgrade else POSTGRESQL_DOWNGRADE
    raise NotImplementedError(f"Full-text search supports SQLite and PostgreSQL, not {dialect}.")


def upgrade():
    for statement in _statements(upgrade=True):
        op.execute(statement)


def downgrade():
    for statement in _statements(upgrade=False):
        op.execute(statement)
