"""Tidying topics and authors: rename, merge, describe and delete them, and the new names a
post form must confirm before they are made.

Every change is conditional on what the editor's page showed (the name, the description):
when another editor changed the row meanwhile, nothing is written and the editor is told.
The rows are locked first, so two editors acting at once queue, and the second one is
refused on what the first one wrote.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import sqlalchemy as sa
import sqlalchemy.orm as so

from blog.authoring import store
from blog.extensions import db
from blog.markup.policy import web_link
from blog.models import Author, Image, Post, PostAuthor, PostTopic, Topic, TopicRedirect

Named = TypeVar("Named", Author, Topic)

TOPIC = "topic"
AUTHOR = "author"
TOPIC_NAME_MAX = store.max_length(Topic.__table__.c.name)
AUTHOR_NAME_MAX = store.max_length(Author.__table__.c.name)
DESCRIPTION_MAX = 500
BIO_MAX = 600
URL_MAX = store.max_length(Author.__table__.c.url)


class Refused(Exception):
    """A change that cannot be made: `status` (404, 409, 422) and a message for the editor."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def kind_of(model: type[Named]) -> str:
    """ "topic" or "author", as messages say it."""
    return TOPIC if model is Topic else AUTHOR


# Reading -----------------------------------------------------------------------------------


def with_post_counts(model: type[Named]) -> list[tuple[Named, int]]:
    """Every topic (in filter order) or author (by name), with how many posts of any state
    carry it."""
    if model is Topic:
        used = (
            sa.select(PostTopic.topic_id.label("id"), sa.func.count().label("posts"))
            .group_by(PostTopic.topic_id)
            .subquery()
        )
        order: tuple[so.InstrumentedAttribute[Any], ...] = (Topic.position, Topic.name, Topic.id)
    else:
        credits = _credits().subquery()
        used = (
            sa.select(credits.c.author_id.label("id"), sa.func.count().label("posts"))
            .group_by(credits.c.author_id)
            .subquery()
        )
        order = (Author.name, Author.id)
    query = (
        sa.select(model, sa.func.coalesce(used.c.posts, 0))
        .outerjoin(used, used.c.id == model.id)
        .order_by(*order)
    )
    return [(row, count) for row, count in db.session.execute(query)]


def _credits() -> sa.CompoundSelect:
    """Each (post_id, author_id) a post credits, once: its author links, and its first author
    as posts.author_id names them (a post written outside the store may have no links)."""
    return sa.union(
        sa.select(Post.id.label("post_id"), Post.author_id.label("author_id")),
        sa.select(PostAuthor.post_id, PostAuthor.author_id),
    )


def post_count(model: type[Named], row_id: int) -> int:
    """How many posts of any state carry the topic or credit the author (as a co-author too)."""
    if model is Topic:
        query = sa.select(sa.func.count()).where(PostTopic.topic_id == row_id)
    else:
        credits = _credits().subquery()
        query = sa.select(sa.func.count()).where(credits.c.author_id == row_id)
    return db.session.scalar(query) or 0


def row_by_id(model: type[Named], row_id: int, *, lock: bool = False) -> Named | None:
    """The topic or author with this id, or None (locked for the transaction with `lock`)."""
    query = sa.select(model).where(model.id == row_id)
    if lock:
        query = query.with_for_update()
    return db.session.scalar(query)


def row_or_404(model: type[Named], row_id: int, *, lock: bool = False) -> Named:
    """The topic or author with this id (Refused with 404 when there is none)."""
    row = row_by_id(model, row_id, lock=lock)
    if row is None:
        kind = kind_of(model)
        raise Refused(404, f"There is no such {kind}: another editor may have removed it.")
    return row


# Checks ------------------------------------------------------------------------------------


def checked_name(model: type[Named], raw: str | None) -> str:
    """The name as it would be stored (spaces tidied), or 422 saying what is wrong with it."""
    kind = kind_of(model)
    name = " ".join(store.clean_text(raw).split())
    limit = TOPIC_NAME_MAX if model is Topic else AUTHOR_NAME_MAX
    if not name:
        raise Refused(422, f"Give the {kind} a name.")
    if len(name) > limit:
        raise Refused(
            422, f"The name is {len(name):,} characters long; a {kind} name takes at most {limit}."
        )
    if model is Topic and not store.slug_for(name, store.TOPIC_SLUG_MAX):
        raise Refused(422, f"“{name}” needs a letter or a digit to be a topic.")
    return name


def _slug(model: type[Named], name: str) -> str:
    """The slug the store's one rule gives this name."""
    return store.topic_slug(name) if model is Topic else store.author_slug(name)


def _unchanged(row: Named, shown_name: str | None) -> None:
    """409 when the row's name is no longer the one the editor's page showed."""
    if shown_name is not None and row.name != shown_name:
        raise Refused(
            409,
            f"Another editor changed this {kind_of(type(row))} while you had the page open: it is "
            f"now called “{row.name}”. Nothing was changed; look again and retry.",
        )


def _locked(model: type[Named], *ids: int) -> dict[int, Named]:
    """The rows with these ids, locked in id order (so two editors never deadlock)."""
    rows: dict[int, Named] = {}
    for row_id in sorted(set(ids)):
        rows[row_id] = row_or_404(model, row_id, lock=True)
    return rows


# Changes -----------------------------------------------------------------------------------


def rename(model: type[Named], row_id: int, new_name: str | None, shown_name: str | None) -> Named:
    """Give a topic or author a new name and the slug the store's rule makes of it.

    A topic's old address keeps leading to it (301); renaming it back to an old name takes
    that address back. 409 when another topic or author has the name (merge instead), or
    when the address still leads to another topic.
    """
    kind = kind_of(model)
    row = _locked(model, row_id)[row_id]
    _unchanged(row, shown_name)
    name = checked_name(model, new_name)
    slug = _slug(model, name)
    clash = db.session.scalar(
        sa.select(model).where(model.id != row.id, sa.or_(model.name == name, model.slug == slug))
    )
    if clash is not None:
        raise Refused(
            409,
            f"There is already a {kind} called “{clash.name}”. To bring the two together, "
            f"merge this {kind} into it instead.",
        )
    if isinstance(row, Topic):
        _take_address(row, slug)
    old_slug = row.slug
    row.name = name
    row.slug = slug
    if model is Topic and slug != old_slug:
        db.session.add(TopicRedirect(old_slug=old_slug, topic_id=row.id))
    _flush(f"Another editor took this {kind} name at the same moment. Choose another.")
    return row


def _take_address(topic: Topic, slug: str) -> None:
    """Let the topic have `slug`: its own old address is taken back; another topic's is 409."""
    redirect = db.session.scalar(sa.select(TopicRedirect).where(TopicRedirect.old_slug == slug))
    if redirect is None:
        return
    if redirect.topic_id != topic.id:
        owner = db.session.get_one(Topic, redirect.topic_id)
        raise Refused(
            409,
            f"The address /topics/{slug} used to belong to the topic “{owner.name}” and still "
            "leads there. Choose another name, or merge into that topic.",
        )
    db.session.delete(redirect)
    db.session.flush()  # the address is free before the topic takes it


def _flush(clash_message: str) -> None:
    """Write pending changes; a constraint a concurrent editor broke is 409 (the caller rolls
    the transaction back)."""
    try:
        db.session.flush()
    except sa.exc.IntegrityError:
        raise Refused(409, clash_message) from None


def describe(topic_id: int, description: str | None, shown: str | None) -> Topic:
    """Set the topic's description (what its page shows under the heading)."""
    topic = _locked(Topic, topic_id)[topic_id]
    text = _lines(description)
    if shown is not None and topic.description != _lines(shown):
        raise Refused(
            409,
            "Another editor changed this topic's description while you had the page open. "
            "Nothing was changed; their text is shown now.",
        )
    if len(text) > DESCRIPTION_MAX:
        raise Refused(
            422,
            f"The description is {len(text):,} characters long; the limit is "
            f"{DESCRIPTION_MAX} characters.",
        )
    topic.description = text
    return topic


def merge(model: type[Named], source_id: int, target_id: int, shown_name: str | None) -> Named:
    """Move everything of one topic or author onto another and remove the first.

    A topic's posts keep one link each (a post filed under both keeps the earlier place),
    its old addresses and its own address lead to the target (301). An author's posts, the
    ones they co-wrote too, credit the target in their place (a post crediting both keeps
    the earlier place).
    """
    kind = kind_of(model)
    if source_id == target_id:
        raise Refused(422, f"A {kind} cannot be merged into itself: choose another {kind}.")
    rows = _locked(model, source_id, target_id)
    source, target = rows[source_id], rows[target_id]
    _unchanged(source, shown_name)
    if isinstance(source, Topic) and isinstance(target, Topic):
        _merge_topic_links(source, target)
        db.session.execute(
            sa.update(TopicRedirect)
            .where(TopicRedirect.topic_id == source.id)
            .values(topic_id=target.id)
            .execution_options(synchronize_session=False)
        )
        db.session.add(TopicRedirect(old_slug=source.slug, topic_id=target.id))
    else:
        _merge_author_links(source.id, target.id)
    db.session.delete(source)
    _flush(f"Another editor changed “{source.name}” at this moment: nothing was merged.")
    db.session.expire_all()
    return db.session.get_one(model, target_id)


def _merge_topic_links(source: Topic, target: Topic) -> None:
    """Re-file the source's posts under the target, one link per post, primaries included."""
    both = sa.select(PostTopic.post_id).where(PostTopic.topic_id == target.id)
    source_link = sa.alias(PostTopic.__table__, "source_link")
    earlier = (
        sa.select(source_link.c.position)
        .where(
            source_link.c.post_id == PostTopic.post_id,
            source_link.c.topic_id == source.id,
        )
        .scalar_subquery()
    )
    # A post under both: the target's link takes the source's place when that came first.
    db.session.execute(
        sa.update(PostTopic)
        .where(PostTopic.topic_id == target.id, earlier < PostTopic.position)
        .values(position=earlier)
        .execution_options(synchronize_session=False)
    )
    db.session.execute(
        sa.delete(PostTopic)
        .where(PostTopic.topic_id == source.id, PostTopic.post_id.in_(both))
        .execution_options(synchronize_session=False)
    )
    db.session.execute(
        sa.update(PostTopic)
        .where(PostTopic.topic_id == source.id)
        .values(topic_id=target.id)
        .execution_options(synchronize_session=False)
    )
    db.session.execute(
        sa.update(Post)
        .where(Post.primary_topic_id == source.id)
        .values(primary_topic_id=target.id)
        .execution_options(synchronize_session=False)
    )


def _merge_author_links(source_id: int, target_id: int) -> None:
    """Credit the target in the source's place on every post, once per post, first authors
    included."""
    both = sa.select(PostAuthor.post_id).where(PostAuthor.author_id == target_id)
    source_link = sa.alias(PostAuthor.__table__, "source_link")
    earlier = (
        sa.select(source_link.c.position)
        .where(
            source_link.c.post_id == PostAuthor.post_id,
            source_link.c.author_id == source_id,
        )
        .scalar_subquery()
    )
    # A post crediting both: the target takes the source's place when that came first.
    for statement in (
        sa.update(PostAuthor)
        .where(PostAuthor.author_id == target_id, earlier < PostAuthor.position)
        .values(position=earlier),
        sa.delete(PostAuthor).where(
            PostAuthor.author_id == source_id, PostAuthor.post_id.in_(both)
        ),
        sa.update(PostAuthor).where(PostAuthor.author_id == source_id).values(author_id=target_id),
        sa.update(Post).where(Post.author_id == source_id).values(author_id=target_id),
    ):
        db.session.execute(statement.execution_options(synchronize_session=False))


def delete(model: type[Named], row_id: int, shown_name: str | None) -> str:
    """Remove a topic or author no post carries; returns its name. 409 while one does."""
    kind = kind_of(model)
    row = _locked(model, row_id)[row_id]
    _unchanged(row, shown_name)
    used = post_count(model, row.id)
    if used:
        what = "post is" if used == 1 else "posts are"
        raise Refused(
            409,
            f"“{row.name}” cannot be deleted: {used:,} {what} filed under it (drafts included). "
            f"Merge it into another {kind} instead, or change those posts first.",
        )
    name = row.name
    db.session.delete(row)
    _flush(f"A post was filed under “{name}” at this moment, so it was not deleted.")
    return name


# Author profiles ---------------------------------------------------------------------------

KEEP = "keep"  # set_profile's avatar: leave it as it is


def checked_url(raw: str | None) -> str | None:
    """An author's own link as stored: None for none, else an http or https address
    (422 for anything else: a script, a mail address, a relative path...)."""
    text = store.clean_text(raw).strip()
    if not text:
        return None
    if len(text) > URL_MAX:
        raise Refused(
            422, f"The link is {len(text):,} characters long; the limit is {URL_MAX} characters."
        )
    if web_link(text) is None:
        raise Refused(422, "The link must be a web address starting with https:// (or http://).")
    return text


def set_profile(
    author_id: int,
    *,
    bio: str | None,
    url: str | None,
    avatar: Image | str | None,
    shown_bio: str | None,
    shown_url: str | None,
) -> Author:
    """Set an author's bio, link and avatar (`KEEP` leaves the avatar as it is); 409 when
    another editor changed the bio or link since the page was opened."""
    author = _locked(Author, author_id)[author_id]
    if shown_bio is not None and (
        _lines(shown_bio) != author.bio or (shown_url or None) != author.url
    ):
        raise Refused(
            409,
            "Another editor changed this author's profile while you had the page open. "
            "Nothing was changed; their version is shown now.",
        )
    text = _lines(bio)
    if len(text) > BIO_MAX:
        raise Refused(
            422, f"The bio is {len(text):,} characters long; the limit is {BIO_MAX} characters."
        )
    author.bio = text
    author.url = checked_url(url)
    if avatar != KEEP:
        author.avatar = avatar if isinstance(avatar, Image) else None
    return author


def _lines(text: str | None) -> str:
    """Text from a textarea as the store keeps it: LF line ends, no control characters."""
    return store.clean_text((text or "").replace("\r\n", "\n")).strip()


# New names in the post form ----------------------------------------------------------------


@dataclass(frozen=True)
class NewName:
    """A topic or author the post form names that does not exist yet."""

    kind: str
    name: str
    slug: str

    @property
    def key(self) -> str:
        """What the form's confirmation checkbox sends for it."""
        return f"{self.kind}:{self.slug}"

    @property
    def question(self) -> str:
        """The label of its confirmation checkbox."""
        return f"Create the new {self.kind} “{self.name}”"


def new_names(topics: Sequence[str], authors: Sequence[str], own_name: str = "") -> list[NewName]:
    """The topics and the authors the find-or-create rule would have to make, but for the
    editor's own name as an author (the form's default: no typo to catch)."""
    found = [
        NewName(TOPIC, name, store.topic_slug(name)) for name in store.new_names(Topic, topics)
    ]
    own = store.author_slug(own_name) if own_name.strip() else None
    named = [name for name in authors if name.strip()]
    if named:
        found += [
            NewName(AUTHOR, name, store.author_slug(name))
            for name in store.new_names(Author, named)
            if store.author_slug(name) != own
        ]
    return found


def unconfirmed(found: Iterable[NewName], confirmed: Iterable[str]) -> list[NewName]:
    """The new names the editor has not ticked "create" for."""
    keys = set(confirmed)
    return [new for new in found if new.key not in keys]


def refusal_for(new: NewName) -> str:
    """What the form says beside a field naming a new topic or author not yet confirmed."""
    article = "an" if new.kind == AUTHOR else "a"
    return (
        f"“{new.name}” is not {article} {new.kind} yet. {new.question}? Tick the box below to "
        f"create it, or choose an existing {new.kind}."
    )
