"""Post history: every save keeps a revision of what it stored."""

from __future__ import annotations

from blog.extensions import db
from blog.models import Post, PostRevision

SAVE = "save"


def record(post: Post, kind: str = SAVE, *, editor_name: str = "") -> PostRevision:
    """Add a revision holding the post as it now stands to the session (the caller commits,
    so the revision and the save it records land together or not at all)."""
    revision = PostRevision(
        post_id=post.id,
        kind=kind,
        editor_name=editor_name,
        lock_version=post.lock_version,
        title=post.title,
        slug=post.slug,
        summary=post.summary,
        body_markdown=post.body_markdown,
        topics=[topic.name for topic in post.topics],
        author_name=post.author.name if post.author is not None else "",
        status=post.status,
        published_at=post.published_at,
        updated_at=post.updated_at,
        image_alt=post.image_alt,
    )
    db.session.add(revision)
    return revision
