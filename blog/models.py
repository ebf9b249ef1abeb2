"""The post store: posts, their topics, authors and images; editors, old slugs and old paths."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, cast

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask_login import UserMixin
from werkzeug.security import check_password_hash, generate_password_hash

from blog import markup
from blog.extensions import Base, db

if TYPE_CHECKING:
    Model = Base  # what db.Model is, as type checkers see it
else:
    Model = db.Model

DRAFT = "draft"
PUBLISHED = "published"
STATUSES = (DRAFT, PUBLISHED)
# Where a draft stands in review: not sent, waiting for an editor, or sent back with a note.
NOT_IN_REVIEW = ""
IN_REVIEW = "in-review"
SENT_BACK = "sent-back"
REVIEW_STATES = (NOT_IN_REVIEW, IN_REVIEW, SENT_BACK)
# What an account may do, least first: writers write their own drafts and send them for
# review; editors review, edit and publish any post and tidy topics and authors; admins do
# all that and manage accounts (blog/roles.py says which pages each one opens).
WRITER = "writer"
EDITOR = "editor"
ADMIN = "admin"
ROLES = (WRITER, EDITOR, ADMIN)
# scrypt with N=2**17, r=8, p=1: at or above the OWASP minimum for password storage.
PASSWORD_METHOD = "scrypt:131072:8:1"


def was_revised(published: datetime | None, updated: datetime | None) -> bool:
    """True when a post was revised after it was first published."""
    return bool(updated and published and updated > published)


def new_session_token() -> str:
    """A fresh random token for an editor's sessions."""
    return secrets.token_urlsafe(24)


def new_link_token() -> str:
    """A fresh secret for a link that opens something by itself (a draft link, an invite, a
    password reset): 256 random bits, URL-safe."""
    return secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    """What the store keeps of a link's token: its SHA-256, never the token itself (a
    random 256-bit token needs no slow hash; a copy of the database opens nothing)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def utcnow() -> datetime:
    """Naive UTC now: every timestamp in the store is naive UTC."""
    return datetime.now(UTC).replace(tzinfo=None)


class Author(Model):
    """A person credited on posts."""

    __tablename__ = "authors"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    name: so.Mapped[str] = so.mapped_column(sa.String(120))
    slug: so.Mapped[str] = so.mapped_column(sa.String(120), unique=True)
    # The profile their page and the post page show: a short bio, their own link (http or
    # https only, checked where it is written) and an uploaded avatar.
    bio: so.Mapped[str] = so.mapped_column(sa.Text, default="", server_default="")
    url: so.Mapped[str | None] = so.mapped_column(sa.String(500))
    avatar_image_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("images.id", ondelete="SET NULL")
    )

    avatar: so.Mapped[Image | None] = so.relationship()

    def __repr__(self) -> str:
        return f"<Author {self.slug}>"


class Topic(Model):
    """A subject posts are filed under; `position` orders the topic filter."""

    __tablename__ = "topics"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    name: so.Mapped[str] = so.mapped_column(sa.String(80), unique=True)
    slug: so.Mapped[str] = so.mapped_column(sa.String(80), unique=True)
    position: so.Mapped[int] = so.mapped_column(default=0)
    # Published posts filed under the topic, scheduled ones included: counted by database
    # triggers on every write (migration 0010), never set here.
    published_count: so.Mapped[int] = so.mapped_column(server_default="0")
    # A sentence or two the topic page shows under its heading (editors write it).
    description: so.Mapped[str] = so.mapped_column(sa.Text, default="", server_default="")

    def __repr__(self) -> str:
        return f"<Topic {self.slug}>"


class TopicRedirect(Model):
    """An address a topic had before it was renamed or merged into another: it answers 301.

    It names the topic, not its next address, so a topic renamed twice leads from either
    old address straight to the present one.
    """

    __tablename__ = "topic_redirects"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    old_slug: so.Mapped[str] = so.mapped_column(sa.String(80), unique=True)
    topic_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("topics.id", ondelete="CASCADE"), index=True
    )
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"<TopicRedirect {self.old_slug}>"


class PostTopic(Model):
    """Links a post to a topic; position 0 is the post's primary topic."""

    __tablename__ = "post_topics"
    __table_args__ = (sa.Index("ix_post_topics_topic_post", "topic_id", "post_id"),)

    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    topic_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("topics.id", ondelete="CASCADE"), primary_key=True
    )
    position: so.Mapped[int] = so.mapped_column(default=0)

    topic: so.Mapped[Topic] = so.relationship(lazy="joined")


class PostAuthor(Model):
    """Credits an author on a post; position 0 is the post's first author (`Post.author`)."""

    __tablename__ = "post_authors"
    __table_args__ = (
        # An author's page finds the posts they co-wrote (position > 0) from this index alone;
        # those they wrote first it finds on posts (ix_posts_author_listing).
        sa.Index("ix_post_authors_author", "author_id", "position", "post_id"),
    )

    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True
    )
    # No cascade: an author still credited is merged or kept, never deleted under a post.
    author_id: so.Mapped[int] = so.mapped_column(sa.ForeignKey("authors.id"), primary_key=True)
    position: so.Mapped[int] = so.mapped_column(default=0)

    author: so.Mapped[Author] = so.relationship(lazy="joined")


class Image(Model):
    """An uploaded picture, cleaned of metadata and stored by content hash."""

    __tablename__ = "images"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    sha256: so.Mapped[str] = so.mapped_column(sa.String(64), unique=True)
    content_type: so.Mapped[str] = so.mapped_column(sa.String(32))
    # Deferred: pages need the dimensions, only the image route needs the bytes.
    data: so.Mapped[bytes] = so.mapped_column(sa.LargeBinary, deferred=True)
    width: so.Mapped[int]
    height: so.Mapped[int]
    byte_size: so.Mapped[int]
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"<Image {self.sha256[:12]}>"


class ImageRendition(Model):
    """A resized copy of a stored image, made when first asked for and kept for good."""

    __tablename__ = "image_renditions"
    __table_args__ = (sa.UniqueConstraint("image_id", "width", "content_type"),)

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    image_id: so.Mapped[int] = so.mapped_column(sa.ForeignKey("images.id", ondelete="CASCADE"))
    width: so.Mapped[int]
    height: so.Mapped[int]
    content_type: so.Mapped[str] = so.mapped_column(sa.String(32))
    sha256: so.Mapped[str] = so.mapped_column(sa.String(64))  # of `data`: the strong ETag
    data: so.Mapped[bytes] = so.mapped_column(sa.LargeBinary)
    byte_size: so.Mapped[int]
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"<ImageRendition {self.image_id} {self.width} {self.content_type}>"


class Post(Model):
    """A blog post: Markdown source, its stored render, and listing flags."""

    __tablename__ = "posts"
    __table_args__ = (
        sa.CheckConstraint(f"status IN {STATUSES!r}", name="status"),
        sa.CheckConstraint(f"review_state IN {REVIEW_STATES!r}", name="review_state"),
        # The listing and its topic pages walk published posts newest first.
        sa.Index("ix_posts_listing", "status", "published_at", "id"),
        sa.Index("ix_posts_featured", "featured", "status", "published_at"),
        sa.Index("ix_posts_pick", "editors_pick", "status", "published_at"),
        # An author's page counts and walks their live posts newest first (and the foreign
        # key is served by it too).
        sa.Index("ix_posts_author_listing", "author_id", "status", "published_at", "id"),
        # Ids are never handed out twice (SQLite would reuse the highest one once it is
        # deleted), so an old editor tab can never save into another post.
        {"sqlite_autoincrement": True},
    )

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    slug: so.Mapped[str] = so.mapped_column(sa.String(200), unique=True)
    title: so.Mapped[str] = so.mapped_column(sa.String(300))
    # `summary` is what the editor wrote (maybe nothing); `excerpt` is what cards show:
    # that summary, or one derived from the body's first paragraph.
    summary: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    excerpt: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    body_markdown: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    body_html: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    render_version: so.Mapped[int] = so.mapped_column(default=0)
    reading_minutes: so.Mapped[int] = so.mapped_column(default=1)
    # Table of contents of the stored render: [[level, id, title], ...]; shown for 3+ sections.
    toc: so.Mapped[list] = so.mapped_column(sa.JSON, default=list)
    status: so.Mapped[str] = so.mapped_column(sa.String(16), default=DRAFT)
    published_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    updated_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    featured: so.Mapped[bool] = so.mapped_column(default=False)
    editors_pick: so.Mapped[bool] = so.mapped_column(default=False)
    image_alt: so.Mapped[str | None] = so.mapped_column(sa.String(500))
    # For search engines and link previews; "" and None fall back to the excerpt and the
    # post's picture (blog/reading/seo.py).
    meta_description: so.Mapped[str] = so.mapped_column(sa.Text, default="", server_default="")
    social_image_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("images.id", ondelete="SET NULL"), index=True
    )
    # The first author, kept in step with the post's author links (set_authors): listings
    # read it from the row, and an author's page walks ix_posts_author_listing for it.
    author_id: so.Mapped[int] = so.mapped_column(sa.ForeignKey("authors.id"))
    primary_topic_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("topics.id"), index=True
    )
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    modified_at: so.Mapped[datetime] = so.mapped_column(default=utcnow, onupdate=utcnow)
    image_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("images.id", ondelete="SET NULL"), index=True
    )
    # The optimistic lock: bumped by every save; a save based on an older value is refused
    # (editors' conflicts).
    lock_version: so.Mapped[int] = so.mapped_column(default=1, server_default="1")
    # The post's permanent identity, fixed when it is created: feed entry ids are built on
    # it, and export and import carry it (`id:`), whereas the database id changes with them.
    uid: so.Mapped[uuid.UUID] = so.mapped_column(sa.Uuid, unique=True, default=uuid.uuid4)
    # The drawing chosen by hand (blog/media/drawing_spec.py), stored in its one spelling;
    # empty: the post's words choose it.
    illustration: so.Mapped[str] = so.mapped_column(sa.String(300), default="", server_default="")
    # The account that created the post: its writer, who may change it while it is a draft.
    # None for posts an import or the demo made (only editors change those).
    created_by_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("editors.id", ondelete="SET NULL"), index=True
    )
    # Where the draft stands in review (REVIEW_STATES); back to "" when it is published.
    review_state: so.Mapped[str] = so.mapped_column(
        sa.String(16), default=NOT_IN_REVIEW, server_default=""
    )

    __mapper_args__ = {"version_id_col": lock_version}

    author: so.Mapped[Author] = so.relationship()
    # Joined so that cards, which need its size, never load it one by one.
    image: so.Mapped[Image | None] = so.relationship(lazy="joined", foreign_keys=[image_id])
    social_image: so.Mapped[Image | None] = so.relationship(foreign_keys=[social_image_id])
    primary_topic: so.Mapped[Topic | None] = so.relationship()
    topic_links: so.Mapped[list[PostTopic]] = so.relationship(
        order_by=PostTopic.position, cascade="all, delete-orphan", passive_deletes=True
    )
    author_links: so.Mapped[list[PostAuthor]] = so.relationship(
        order_by=PostAuthor.position, cascade="all, delete-orphan", passive_deletes=True
    )

    def __repr__(self) -> str:
        return f"<Post {self.slug}>"

    @property
    def topics(self) -> list[Topic]:
        """Topics in order; the first is the primary one."""
        return [link.topic for link in self.topic_links]

    def set_topics(self, topics: list[Topic]) -> None:
        """Replace the post's topics, keeping the primary-topic shortcut in step (None for a
        draft that has no topic yet; the store refuses to publish one)."""
        self.topic_links = [
            PostTopic(topic=topic, position=index) for index, topic in enumerate(topics)
        ]
        self.primary_topic = topics[0] if topics else None

    @property
    def authors(self) -> list[Author]:
        """Authors in order; the first is `author` (a post written outside the store, with no
        author links, has that one alone)."""
        return [link.author for link in self.author_links] or [self.author]

    def set_authors(self, authors: Sequence[Author]) -> None:
        """Credit the post to these authors in order, each once, keeping `author` the first."""
        credited = list(dict.fromkeys(authors))
        if not credited:
            raise ValueError("a post needs at least one author")
        self.author_links = [
            PostAuthor(author=author, position=index) for index, author in enumerate(credited)
        ]
        self.author = credited[0]

    @property
    def was_updated(self) -> bool:
        """True when the post was revised after it was first published."""
        return was_revised(self.published_at, self.updated_at)

    def take_render(self, markdown_text: str, rendered: markup.Rendered) -> None:
        """Hold this Markdown and its render: the HTML, reading time, table of contents (when
        the post has enough sections for one) and the card's excerpt, which is the summary
        or, without one, the render's. The one place a render is put on a post."""
        self.body_markdown = markdown_text
        self.body_html = rendered.html
        self.reading_minutes = rendered.reading_minutes
        self.toc = (
            [[entry.level, entry.id, entry.title] for entry in rendered.toc]
            if rendered.show_toc
            else []
        )
        self.render_version = markup.PIPELINE_VERSION
        self.excerpt = (self.summary or "").strip() or rendered.summary


def max_length(column: sa.ColumnElement[str]) -> int:
    """The most characters a String column holds, as the model declares it."""
    length = cast(sa.String, column.type).length
    assert length is not None, f"{column} has no length"
    return length


def live(now: datetime | sa.BindParameter[datetime] | None = None) -> sa.ColumnElement[bool]:
    """What readers see: published posts whose publish time has come (as of `now`, a time
    or a bound parameter that carries it)."""
    at = utcnow() if now is None else now
    return sa.and_(Post.status == PUBLISHED, Post.published_at <= at)


def scheduled(now: datetime | sa.BindParameter[datetime] | None = None) -> sa.ColumnElement[bool]:
    """Published posts whose publish time is still to come: they go live by themselves."""
    at = utcnow() if now is None else now
    return sa.and_(Post.status == PUBLISHED, Post.published_at > at)


class SiteState(Model):
    """One row whose version every write to reader-visible rows bumps (for caches and ETags).

    It also records when the next scheduled post goes live, so the first request after that
    moment moves the version on (blog/web/versions.py).
    """

    __tablename__ = "site_state"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    version: so.Mapped[int] = so.mapped_column(sa.BigInteger, default=1)
    changed_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    next_publish_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    # Published posts, scheduled ones included: counted like Topic.published_count.
    published_count: so.Mapped[int] = so.mapped_column(server_default="0")


class SlugRedirect(Model):
    """An address a published post had before its slug changed; it answers with a 301."""

    __tablename__ = "slug_redirects"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    old_slug: so.Mapped[str] = so.mapped_column(sa.String(200), unique=True)
    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), index=True
    )
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)

    post: so.Mapped[Post] = so.relationship()

    def __repr__(self) -> str:
        return f"<SlugRedirect {self.old_slug}>"


class OldAddress(Model):
    """A path a post answered at on the site it was moved from: it answers with a 301.

    Kept as `blog.catalog.address_key` spells it (no trailing slash, `.html` or
    `index.html`), so each form of the old link finds the post.
    """

    __tablename__ = "old_addresses"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    path: so.Mapped[str] = so.mapped_column(sa.String(500), unique=True)
    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), index=True
    )
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)

    post: so.Mapped[Post] = so.relationship()

    def __repr__(self) -> str:
        return f"<OldAddress {self.path}>"


class Editor(UserMixin, Model):
    """Someone who may log in to write (and, by their role, publish posts or manage
    accounts)."""

    __tablename__ = "editors"
    __table_args__ = (sa.CheckConstraint(f"role IN {ROLES!r}", name="role"),)

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    email: so.Mapped[str] = so.mapped_column(sa.String(254), unique=True)
    name: so.Mapped[str] = so.mapped_column(sa.String(120))
    password_hash: so.Mapped[str] = so.mapped_column(sa.String(255))
    active: so.Mapped[bool] = so.mapped_column(default=True)
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    # Carried by the session cookie and replaced at every login, logout and password change:
    # a copy of the cookie taken before then no longer opens anything.
    session_token: so.Mapped[str] = so.mapped_column(sa.String(64), default=new_session_token)
    # What the account may do (ROLES). Accounts from before roles existed are admins.
    role: so.Mapped[str] = so.mapped_column(sa.String(16), default=ADMIN, server_default=ADMIN)

    def __repr__(self) -> str:
        return f"<Editor {self.email}>"

    @property
    def publishes(self) -> bool:
        """Editors and admins review, publish and change every post; writers do not."""
        return self.role in (EDITOR, ADMIN)

    @property
    def is_admin(self) -> bool:
        """Admins manage accounts besides everything editors do."""
        return self.role == ADMIN

    def get_id(self) -> str:
        """What the session cookie stores: the account and its current session token."""
        return f"{self.id}:{self.session_token}"

    def end_sessions(self) -> None:
        """Every session opened so far stops working (the caller commits)."""
        self.session_token = new_session_token()

    @property
    def is_active(self) -> bool:
        """Disabled editors cannot log in, and their open sessions stop working."""
        return self.active

    def set_password(self, password: str) -> None:
        """Store a salted scrypt hash of the password, never the password itself."""
        self.password_hash = generate_password_hash(password, method=PASSWORD_METHOD)
        self.end_sessions()

    def check_password(self, password: str) -> bool:
        """True when the password matches the stored hash."""
        return check_password_hash(self.password_hash, password)


class PostRevision(Model):
    """A post as one save (or autosave, restore, refused conflict) left it: its history.

    Revisions point at their post by id without a foreign key, so they outlive a deleted post
    (ids are never reused); they name the editor and author as text for the same reason.
    """

    __tablename__ = "post_revisions"
    __table_args__ = (sa.Index("ix_post_revisions_post", "post_id", "id"),)

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    post_id: so.Mapped[int]
    kind: so.Mapped[str] = so.mapped_column(sa.String(16))
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    editor_name: so.Mapped[str] = so.mapped_column(sa.String(120), default="")
    lock_version: so.Mapped[int | None]
    title: so.Mapped[str] = so.mapped_column(sa.String(300))
    slug: so.Mapped[str] = so.mapped_column(sa.String(200))
    summary: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    body_markdown: so.Mapped[str] = so.mapped_column(sa.Text, default="")
    topics: so.Mapped[list] = so.mapped_column(sa.JSON, default=list)  # names, in order
    author_name: so.Mapped[str] = so.mapped_column(sa.String(120), default="")  # the first
    # Every author's name, in order; empty in revisions made before co-authors (migration
    # 0022), which name their one author in author_name.
    authors: so.Mapped[list] = so.mapped_column(sa.JSON, default=list, server_default="[]")
    status: so.Mapped[str] = so.mapped_column(sa.String(16))
    published_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    updated_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)
    image_alt: so.Mapped[str | None] = so.mapped_column(sa.String(500))
    meta_description: so.Mapped[str] = so.mapped_column(sa.Text, default="", server_default="")
    illustration: so.Mapped[str] = so.mapped_column(sa.String(300), default="", server_default="")
    # The pictures' hashes ("" for none) and the flags, for three-way merges; NULL (unknown)
    # in revisions made before migration 0025.
    image_sha256: so.Mapped[str | None] = so.mapped_column(sa.String(64))
    social_image_sha256: so.Mapped[str | None] = so.mapped_column(sa.String(64))
    featured: so.Mapped[bool | None]
    editors_pick: so.Mapped[bool | None]

    def __repr__(self) -> str:
        return f"<PostRevision {self.post_id}#{self.id} {self.kind}>"


class TrashedPost(Model):
    """A deleted post, kept for a while so it can be put back exactly as it was.

    The post's row is gone (the public site, counts and search forget it); this row keeps
    its id and a JSON snapshot of every field, its topic and author names, its image's hash
    and its old addresses. Like revisions it has no foreign key: the id is never reused.
    """

    __tablename__ = "trashed_posts"

    post_id: so.Mapped[int] = so.mapped_column(primary_key=True, autoincrement=False)
    deleted_at: so.Mapped[datetime] = so.mapped_column(default=utcnow, index=True)
    deleted_by: so.Mapped[str] = so.mapped_column(sa.String(120), default="")
    title: so.Mapped[str] = so.mapped_column(sa.String(300))
    snapshot: so.Mapped[dict] = so.mapped_column(sa.JSON)

    def __repr__(self) -> str:
        return f"<TrashedPost {self.post_id}>"


class EditorPresence(Model):
    """An editor who has a post open in the editor: since when (this visit) and when their
    page last said so. Rows older than a minute are ignored (blog/authoring/presence.py)."""

    __tablename__ = "editor_presence"

    post_id: so.Mapped[int] = so.mapped_column(primary_key=True, autoincrement=False)
    editor_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("editors.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    opened_at: so.Mapped[datetime]
    seen_at: so.Mapped[datetime]

    def __repr__(self) -> str:
        return f"<EditorPresence {self.editor_id} on {self.post_id}>"


class PendingChange(Model):
    """Changes to a published post saved as a draft ("Save draft", an autosave, a restore):
    the editor's form as sent, waiting for "Update". Readers, feeds, search and the page cache
    read only the post's own columns, so nothing here reaches them; one row per post, gone
    with it (ON DELETE CASCADE).

    `based_on` is the post's lock version the changes started from (a save made since is
    merged with them); `version` counts the row's writes, so an editor's tab that loaded an
    older one cannot overwrite another editor's changes.
    """

    __tablename__ = "pending_changes"

    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), primary_key=True, autoincrement=False
    )
    # The form's fields as sent, each name to its list of values (files kept by hash).
    fields: so.Mapped[dict] = so.mapped_column(sa.JSON)
    based_on: so.Mapped[int]
    version: so.Mapped[int] = so.mapped_column(default=1)
    editor_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("editors.id", ondelete="SET NULL")
    )
    editor_name: so.Mapped[str] = so.mapped_column(sa.String(120), default="")
    saved_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    # True when the last write was an autosave rather than "Save draft".
    autosaved: so.Mapped[bool] = so.mapped_column(default=False)
    # When the changes replace the live text by themselves (Schedule on a live post), or None.
    go_live_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)

    def __repr__(self) -> str:
        return f"<PendingChange {self.post_id} v{self.version}>"


class PostEvent(Model):
    """A change of a post's state: sent for review, sent back (with the note), published,
    scheduled, unpublished. The history shows them beside the revisions.

    Like revisions, events name their post by id without a foreign key and their editor as
    text, so they outlive a deleted post and a renamed account.
    """

    __tablename__ = "post_events"
    __table_args__ = (sa.Index("ix_post_events_post", "post_id", "id"),)

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    post_id: so.Mapped[int]
    kind: so.Mapped[str] = so.mapped_column(sa.String(16))
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    editor_name: so.Mapped[str] = so.mapped_column(sa.String(120), default="")
    # What an editor wrote when sending a draft back; empty for other events.
    note: so.Mapped[str] = so.mapped_column(sa.Text, default="", server_default="")

    def __repr__(self) -> str:
        return f"<PostEvent {self.post_id}#{self.id} {self.kind}>"


class DraftLink(Model):
    """A private link that shows a draft to whoever has it, until it expires, is revoked, or
    the post is published or deleted (blog/draft_links.py holds the rule)."""

    __tablename__ = "draft_links"

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    post_id: so.Mapped[int] = so.mapped_column(
        sa.ForeignKey("posts.id", ondelete="CASCADE"), index=True
    )
    # The SHA-256 of the link's token (token_digest): the token is shown once, never kept.
    token_hash: so.Mapped[str] = so.mapped_column(sa.String(64), unique=True)
    created_by_name: so.Mapped[str] = so.mapped_column(sa.String(120), default="")
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    expires_at: so.Mapped[datetime]

    def __repr__(self) -> str:
        return f"<DraftLink {self.post_id} until {self.expires_at:%Y-%m-%d %H:%M}>"


INVITE = "invite"
PASSWORD_RESET = "reset"


class AccountLink(Model):
    """A one-time link an admin makes: an invitation to create an account with a role, or a
    password reset for an account. Used once (`used_at`), or never after `expires_at`."""

    __tablename__ = "account_links"
    __table_args__ = (
        sa.CheckConstraint(f"purpose IN {(INVITE, PASSWORD_RESET)!r}", name="purpose"),
    )

    id: so.Mapped[int] = so.mapped_column(primary_key=True)
    purpose: so.Mapped[str] = so.mapped_column(sa.String(16))
    token_hash: so.Mapped[str] = so.mapped_column(sa.String(64), unique=True)
    # The address invited, or the address of the account whose password it resets.
    email: so.Mapped[str] = so.mapped_column(sa.String(254))
    # The role an invited account gets; None for a reset.
    role: so.Mapped[str | None] = so.mapped_column(sa.String(16))
    # The account a reset is for; None for an invitation.
    editor_id: so.Mapped[int | None] = so.mapped_column(
        sa.ForeignKey("editors.id", ondelete="CASCADE"), index=True
    )
    created_by_name: so.Mapped[str] = so.mapped_column(sa.String(120), default="")
    created_at: so.Mapped[datetime] = so.mapped_column(default=utcnow)
    expires_at: so.Mapped[datetime]
    used_at: so.Mapped[datetime | None] = so.mapped_column(sa.DateTime)

    def __repr__(self) -> str:
        return f"<AccountLink {self.purpose} {self.email}>"
