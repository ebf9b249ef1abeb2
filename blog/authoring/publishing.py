"""What the editor's action bar asks of a save, and the question it asks once before a post
reaches readers or leaves them ("Publish to readers now?"), with what readers will see change.

The bar's buttons all submit the editor's form with `name="action"`: the action, not a
status field, decides the post's state. Going live and going off the site take two steps:
the first answers with the question and the changes, the second (a `confirm-…` action)
saves. Without JavaScript both steps are plain form posts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from blog.authoring import revisions
from blog.catalog import SCHEDULED, state_of
from blog.models import DRAFT, PUBLISHED, Post, utcnow
from blog.web.templating import site_datetime

SAVE = "save"  # "Save draft": a draft stays a draft; a published post keeps its changes pending
PUBLISH = "publish"  # a draft goes live now
SCHEDULE = "schedule"  # the post goes live by itself at the time in its date field
UPDATE = "update"  # a live post's changes go to readers
UNPUBLISH = "unpublish"  # a live or scheduled post goes back to draft
KEEP_EDITING = "keep-editing"  # the question's "not now": nothing is saved
CONFIRM = "confirm-"  # prefix of the question's answer: "confirm-publish"...
TO_READERS = (PUBLISH, SCHEDULE, UPDATE)
ASKED = (*TO_READERS, UNPUBLISH)


def asked(action: str) -> tuple[str, bool]:
    """The bar's action without its confirmation prefix, and whether it is the answer to
    the question (a confirmed action); ("", False) for any other action."""
    confirmed = action.startswith(CONFIRM)
    kind = action.removeprefix(CONFIRM) if confirmed else action
    return (kind, confirmed) if kind in ASKED else ("", False)


def status_for(published_at: datetime | None, now: datetime | None = None) -> str:
    """The state a post going to readers takes: scheduled for a time still to come,
    published otherwise (now, or at the past time it names)."""
    now = now or utcnow()
    return SCHEDULED if published_at is not None and published_at > now else PUBLISHED


def primary_action(post: Post | None, published_at: datetime | None) -> str:
    """What the bar's main button does for this post and this date: schedule for a time
    still to come, update a live post, publish anything else."""
    if status_for(published_at) == SCHEDULED:
        return SCHEDULE
    if post is not None and state_of(post) == PUBLISHED:
        return UPDATE
    return PUBLISH


LABELS = {PUBLISH: "Publish", SCHEDULE: "Schedule", UPDATE: "Update"}


@dataclass(frozen=True)
class Question:
    """The question asked before a post reaches readers or leaves them."""

    kind: str  # publish, schedule, update or unpublish: the answer is CONFIRM + kind
    title: str
    button: str
    points: list[str] = field(default_factory=list)  # what readers will see happen
    changes: list[revisions.Change] = field(default_factory=list)  # fields readers see change
    body: str = ""  # "3 lines added, 1 removed", or "" when the body is the same


def _where(slug: str) -> str:
    return f"/posts/{slug}"


def _body_change(old: str, new: str) -> str:
    """How many lines of the body change, in words; "" when none."""
    hunks = revisions.body_diff(old, new)
    if hunks is None:
        return "rewritten (too different to count lines)"
    added = sum(line.kind == revisions.ADDED for hunk in hunks for line in hunk)
    removed = sum(line.kind == revisions.REMOVED for hunk in hunks for line in hunk)
    if not (added or removed):
        return ""
    parts = []
    if added:
        parts.append(f"{added} line{'s' if added != 1 else ''} added")
    if removed:
        parts.append(f"{removed} line{'s' if removed != 1 else ''} removed")
    return ", ".join(parts)


def _changes(post: Post, new: revisions.Text) -> tuple[list[revisions.Change], str]:
    """What readers of a live post will see change in its text, and in its body."""
    old = revisions.text_of(post)
    changes = [
        change
        for change in revisions.field_changes(old, new)
        if change.label not in ("Status", "Publish date")
    ]
    return changes, _body_change(old.body, new.body)


def question(kind: str, post: Post | None, new: revisions.Text, slug: str) -> Question:
    """What to ask before `kind` saves `new` (the form's text) over `post` (None: new)."""
    state = state_of(post) if post is not None else DRAFT
    when = site_datetime(new.published_at) if new.published_at else ""
    if kind == UNPUBLISH:
        if state == SCHEDULED and post is not None:
            return Question(
                kind,
                "Cancel the schedule?",
                "Unschedule",
                [
                    f"The post will not go live at {site_datetime(post.published_at)}: it "
                    "stays here as a draft, with the text in this form."
                ],
            )
        return Question(
            kind,
            "Take this post off the site?",
            "Unpublish",
            [
                f"Readers will no longer find it at {_where(post.slug if post else slug)} "
                "(the address answers “not found”), on the home page, on its topic and "
                "author pages, in the feeds or in search.",
                "It stays here as a draft, with the text in this form.",
            ],
        )
    if kind == SCHEDULE and state == PUBLISHED and post is not None:
        changes, body = _changes(post, new)
        points = [
            f"Readers keep the version on the site now until {when}; then these changes "
            f"replace it at {_where(post.slug)} by themselves.",
            "Until then they wait as the post's draft changes, and its first publish date "
            "stays as it is.",
        ]
        return Question(kind, "Schedule these changes?", "Schedule", points, changes, body)
    if kind == SCHEDULE:
        points = [f"It goes live by itself at {when}, at {_where(slug)}."]
        return Question(kind, "Schedule for readers?", "Schedule", points)
    if kind == UPDATE and post is not None:
        changes, body = _changes(post, new)
        points = [f"Readers of {_where(post.slug)} see these changes at once."]
        if not changes and not body:
            points = ["Nothing readers see changes in the text; the rest of the form is saved."]
        return Question(
            kind, "Update the post readers see now?", "Update now", points, changes, body
        )
    return Question(
        PUBLISH,
        "Publish to readers now?",
        "Publish now",
        [
            f"It appears at {_where(slug)}, on the home page, on its topic and author "
            "pages, in the feeds and in search."
        ],
    )
