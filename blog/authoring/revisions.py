"""Post history: every save keeps a revision, and so do autosaves and set-aside conflicts.

Revisions are plain rows in post_revisions, which no cached page depends on: recording one
never moves the data version. Retention: the newest KEEP revisions of a post always stay,
and so does every save whose post was published (its text was public once) and every text
set aside in a conflict. Older drafts' saves and autosaves go as new revisions come in.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from blog.extensions import db
from blog.models import DRAFT, PUBLISHED, Post, PostRevision, max_length

SAVE = "save"  # an editor's save (or, with no editor named, a version saved elsewhere)
AUTOSAVE = "autosave"  # text being typed, sent while the editor pauses; never published
RESTORE = "restore"  # a save that put an earlier revision's text back
CONFLICT = "conflict"  # an editor's text that lost a conflict and was set aside
KIND_LABELS = {
    SAVE: "Save",
    AUTOSAVE: "Autosave",
    RESTORE: "Restore",
    CONFLICT: "Set aside in a conflict",
}
KEEP = 50  # revisions per post kept whatever they are

# The longest values the revision columns hold.
LIMITS = {
    name: max_length(PostRevision.__table__.c[name])
    for name in ("title", "slug", "author_name", "image_alt", "illustration")
}


@dataclass(frozen=True)
class Text:
    """What a revision keeps of a post: its text, topics, author and publishing settings."""

    title: str
    slug: str
    summary: str
    body: str
    topics: tuple[str, ...]
    author: str
    status: str
    published_at: datetime | None = None
    updated_at: datetime | None = None
    image_alt: str | None = None
    meta_description: str = ""
    illustration: str = ""  # the drawing's spec

    def too_long(self) -> str | None:
        """The first field longer than its column holds, or None when all fit."""
        values = {
            "title": self.title,
            "slug": self.slug,
            "author_name": self.author,
            "image_alt": self.image_alt or "",
            "illustration": self.illustration,
        }
        for name, value in values.items():
            if len(value) > LIMITS[name]:
                return name
        return None


NOTHING = Text("", "", "", "", (), "", DRAFT)  # a deleted post, compared with its revisions


def text_of(post: Post) -> Text:
    """The text a stored post holds now."""
    return Text(
        title=post.title,
        slug=post.slug,
        summary=post.summary,
        body=post.body_markdown,
        topics=tuple(topic.name for topic in post.topics),
        author=post.author.name if post.author is not None else "",
        status=post.status,
        published_at=post.published_at,
        updated_at=post.updated_at,
        image_alt=post.image_alt,
        meta_description=post.meta_description,
        illustration=post.illustration,
    )


def text_in(revision: PostRevision) -> Text:
    """The text a revision keeps."""
    return Text(
        title=revision.title,
        slug=revision.slug,
        summary=revision.summary,
        body=revision.body_markdown,
        topics=tuple(revision.topics or ()),
        author=revision.author_name,
        status=revision.status,
        published_at=revision.published_at,
        updated_at=revision.updated_at,
        image_alt=revision.image_alt,
        meta_description=revision.meta_description,
        illustration=revision.illustration,
    )


def record(post: Post, kind: str = SAVE, *, editor_name: str = "") -> PostRevision:
    """Add a revision holding the post as it now stands to the session (the caller commits,
    so the revision and the save it records land together or not at all)."""
    return _add(post.id, text_of(post), kind, editor_name, post.lock_version)


def record_text(
    post_id: int, text: Text, kind: str, *, editor_name: str, lock_version: int | None
) -> PostRevision | None:
    """Add a revision of text that was not saved into the post (an autosave, a conflict's
    losing side); None when the post's newest revision already holds exactly this."""
    newest = db.session.scalar(
        sa.select(PostRevision)
        .where(PostRevision.post_id == post_id)
        .order_by(PostRevision.id.desc())
        .limit(1)
    )
    if newest is not None and _same_text(text_in(newest), text):
        return None
    return _add(post_id, text, kind, editor_name, lock_version)


def _same_text(one: Text, other: Text) -> bool:
    """True when two texts differ in nothing an editor types (dates and status aside)."""
    fields = (
        "title",
        "slug",
        "summary",
        "body",
        "topics",
        "author",
        "meta_description",
        "illustration",
    )
    return all(getattr(one, name) == getattr(other, name) for name in fields)


def _add(
    post_id: int, text: Text, kind: str, editor_name: str, lock_version: int | None
) -> PostRevision:
    """Store one revision, then let the oldest prunable ones go."""
    revision = PostRevision(
        post_id=post_id,
        kind=kind,
        editor_name=editor_name,
        lock_version=lock_version,
        title=text.title,
        slug=text.slug,
        summary=text.summary,
        body_markdown=text.body,
        topics=list(text.topics),
        author_name=text.author,
        status=text.status,
        published_at=text.published_at,
        updated_at=text.updated_at,
        image_alt=text.image_alt,
        meta_description=text.meta_description,
        illustration=text.illustration,
    )
    db.session.add(revision)
    db.session.flush()
    prune(post_id)
    return revision


def prune(post_id: int) -> None:
    """Drop what retention lets go: autosaves past the KEEP newest autosaves, and saves of
    an unpublished post past the KEEP newest other revisions.

    Ranking autosaves apart keeps a long typing session from pushing saves out; every
    revision among the KEEP newest overall is among the KEEP newest of its own group, so
    those always stay. Published saves and set-aside conflicts are never dropped.
    """
    _drop_beyond(post_id, ranked=[AUTOSAVE], prunable=[AUTOSAVE], published_too=True)
    others = [SAVE, RESTORE, CONFLICT]
    _drop_beyond(post_id, ranked=others, prunable=[SAVE, RESTORE], published_too=False)


def _drop_beyond(
    post_id: int, *, ranked: Sequence[str], prunable: Sequence[str], published_too: bool
) -> None:
    """Delete `prunable` revisions older than the KEEP newest of the `ranked` kinds."""
    oldest_kept = db.session.scalar(
        sa.select(PostRevision.id)
        .where(PostRevision.post_id == post_id, PostRevision.kind.in_(ranked))
        .order_by(PostRevision.id.desc())
        .offset(KEEP - 1)
        .limit(1)
    )
    if oldest_kept is None:
        return
    condition = sa.and_(
        PostRevision.post_id == post_id,
        PostRevision.kind.in_(prunable),
        PostRevision.id < oldest_kept,
    )
    if not published_too:
        condition = sa.and_(condition, PostRevision.status != PUBLISHED)
    db.session.execute(sa.delete(PostRevision).where(condition))


def history(post_id: int) -> list[PostRevision]:
    """Every revision kept for a post (or for the post that had this id), newest first."""
    query = (
        sa.select(PostRevision)
        .where(PostRevision.post_id == post_id)
        .order_by(PostRevision.id.desc())
    )
    return list(db.session.scalars(query))


def revision_of(post_id: int, revision_id: int) -> PostRevision | None:
    """One revision of one post, or None when that post has no such revision."""
    revision = db.session.get(PostRevision, revision_id)
    return revision if revision is not None and revision.post_id == post_id else None


def autosave_after(post_id: int, moment: datetime) -> PostRevision | None:
    """The newest autosave of a post made after `moment` (its last save), if any."""
    query = (
        sa.select(PostRevision)
        .where(
            PostRevision.post_id == post_id,
            PostRevision.kind == AUTOSAVE,
            PostRevision.created_at > moment,
        )
        .order_by(PostRevision.id.desc())
        .limit(1)
    )
    return db.session.scalar(query)


def has_saved_version(post: Post) -> bool:
    """True when a save or restore revision holds the post at its current lock version."""
    query = sa.select(PostRevision.id).where(
        PostRevision.post_id == post.id,
        PostRevision.lock_version == post.lock_version,
        PostRevision.kind.in_([SAVE, RESTORE]),
    )
    return db.session.scalar(query.limit(1)) is not None


# Comparing texts ---------------------------------------------------------------------------

SAME, REMOVED, ADDED = "same", "removed", "added"
CONTEXT = 3  # unchanged lines shown around each change


@dataclass(frozen=True)
class Line:
    """One line of a diff: `kind` says whether it is in both texts, the old or the new only."""

    kind: str
    text: str
    old_number: int | None
    new_number: int | None


@dataclass(frozen=True)
class Change:
    """A field that differs between two texts, as each shows it."""

    label: str
    old: str
    new: str


def line_diff(old: str, new: str, context: int = CONTEXT) -> list[list[Line]]:
    """The lines that differ from `old` to `new`, in hunks with `context` lines around each
    change; no hunks when the texts have the same lines."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    hunks: list[list[Line]] = []
    for group in matcher.get_grouped_opcodes(context):
        hunk: list[Line] = []
        for tag, old_start, old_end, new_start, new_end in group:
            if tag == "equal":
                hunk += [
                    Line(SAME, old_lines[i], i + 1, new_start + i - old_start + 1)
                    for i in range(old_start, old_end)
                ]
                continue
            hunk += [Line(REMOVED, old_lines[i], i + 1, None) for i in range(old_start, old_end)]
            hunk += [Line(ADDED, new_lines[j], None, j + 1) for j in range(new_start, new_end)]
        hunks.append(hunk)
    return hunks


def _when(moment: datetime | None) -> str:
    """A stored time as the editor shows it."""
    return moment.strftime("%Y-%m-%d %H:%M") + " UTC" if moment is not None else "—"


def compare(old: Text, new: Text) -> dict[str, object]:
    """What the diff templates show: the other fields that differ, and the body's hunks."""
    return {"changes": field_changes(old, new), "hunks": line_diff(old.body, new.body)}


def field_changes(old: Text, new: Text) -> list[Change]:
    """The fields other than the body that differ from `old` to `new`."""
    pairs = [
        ("Title", old.title, new.title),
        ("Address", old.slug, new.slug),
        ("Summary", old.summary, new.summary),
        ("Meta description", old.meta_description, new.meta_description),
        ("Drawing", old.illustration, new.illustration),
        ("Topics", ", ".join(old.topics), ", ".join(new.topics)),
        ("Author", old.author, new.author),
        ("Status", old.status.capitalize(), new.status.capitalize()),
        ("Publish date", _when(old.published_at), _when(new.published_at)),
    ]
    return [Change(label, before, after) for label, before, after in pairs if before != after]
