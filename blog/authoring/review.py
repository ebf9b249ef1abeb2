"""Review: a writer sends a draft to the editors, who publish it, schedule it or send it back
with a note; and every change of a post's state kept with who made it and when.

The changes are rows in post_events, which the history page shows beside the revisions. A
post's place in review is `Post.review_state`: changed in the same save as its text, or on
its own (`send_back`) without moving the post's lock version, so a writer's open tab can
still save.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa

from blog import catalog
from blog.extensions import db
from blog.models import (
    DRAFT,
    IN_REVIEW,
    NOT_IN_REVIEW,
    PUBLISHED,
    SENT_BACK,
    Post,
    PostEvent,
)

SUBMITTED = "submitted"
RETURNED = "sent-back"
PUBLISHED_EVENT = "published"
SCHEDULED_EVENT = "scheduled"
UNPUBLISHED = "unpublished"
DELETED = "deleted"
RESTORED = "restored"
CHANGES_SCHEDULED = "changes-planned"  # a live post's draft changes, to go live later
CHANGES_LIVE = "changes-live"  # those changes, put live at their time
CHANGES_HELD = "changes-held"  # those changes, not put live (the note says why)
KIND_LABELS = {
    SUBMITTED: "Sent for review",
    RETURNED: "Sent back to the writer",
    PUBLISHED_EVENT: "Published",
    SCHEDULED_EVENT: "Scheduled",
    UNPUBLISHED: "Back to draft",
    DELETED: "Moved to the trash",
    RESTORED: "Restored from the trash",
    CHANGES_SCHEDULED: "Draft changes scheduled",
    CHANGES_LIVE: "Scheduled changes went live",
    CHANGES_HELD: "Scheduled changes held back",
}
# What a state becomes as an event: the state a save left the post in.
_EVENT_FOR_STATE = {
    PUBLISHED: PUBLISHED_EVENT,
    catalog.SCHEDULED: SCHEDULED_EVENT,
    DRAFT: UNPUBLISHED,
}
NOTE_MAX = 2000  # characters in a note sent back with a draft
# The editor's names for the states of state_in_editor.
STATE_LABELS = {
    DRAFT: "Draft",
    IN_REVIEW: "In review",
    SENT_BACK: "Sent back",
    catalog.SCHEDULED: "Scheduled",
    PUBLISHED: "Published",
}


def record(post_id: int, kind: str, editor_name: str, note: str = "") -> PostEvent:
    """Add one change of state to the session (the caller commits, with the change)."""
    event = PostEvent(post_id=post_id, kind=kind, editor_name=editor_name, note=note)
    db.session.add(event)
    return event


def state_in_editor(post: Post, now: datetime | None = None) -> str:
    """What the editor calls the post's state: draft, in-review, sent-back, scheduled or
    published."""
    state = catalog.state_of(post, now)
    if state == DRAFT and post.review_state in (IN_REVIEW, SENT_BACK):
        return post.review_state
    return state


def after_save(post: Post, before: str | None, *, submit: bool) -> list[str]:
    """Set the post's place in review for what a save did to its state (`before`: the
    state before, None for a new post), and return the changes of state to record once the
    post has its id: published, scheduled or back to draft, and sent for review (`submit`).

    Called before the save's flush, so the review state is written in the same UPDATE.
    """
    after = catalog.state_of(post)
    changes = []
    if after != DRAFT:
        post.review_state = NOT_IN_REVIEW
    if after != (before or DRAFT):
        changes.append(_EVENT_FOR_STATE[after])
    if submit and after == DRAFT:
        post.review_state = IN_REVIEW
        changes.append(SUBMITTED)
    return changes


def send_back(post: Post, editor_name: str, note: str) -> None:
    """Return a draft in review to its writer with a note (the caller commits). The post's
    text, lock version and last-change time stay as they are."""
    db.session.execute(
        sa.update(Post)
        .where(Post.id == post.id)
        .values(review_state=SENT_BACK, modified_at=post.modified_at)
        .execution_options(synchronize_session=False)
    )
    record(post.id, RETURNED, editor_name, note)
    db.session.expire(post)


def events_of(post_id: int) -> list[PostEvent]:
    """Every change of state kept for a post, newest first."""
    query = sa.select(PostEvent).where(PostEvent.post_id == post_id).order_by(PostEvent.id.desc())
    return list(db.session.scalars(query))


def note_for(post: Post) -> PostEvent | None:
    """The latest sending back of a draft that is still sent back: its note, who, when."""
    if post.review_state != SENT_BACK:
        return None
    query = (
        sa.select(PostEvent)
        .where(PostEvent.post_id == post.id, PostEvent.kind == RETURNED)
        .order_by(PostEvent.id.desc())
        .limit(1)
    )
    return db.session.scalar(query)


def in_review() -> sa.ColumnElement[bool]:
    """Drafts waiting for an editor."""
    return sa.and_(Post.status == DRAFT, Post.review_state == IN_REVIEW)
