"""The post list: every post, narrowed by state, topic or author, sorted and paged."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import (
    abort,
    request,
    url_for,
)
from flask.wrappers import Response
from flask_login import current_user
from markupsafe import Markup
from werkzeug.exceptions import BadRequest

from blog import catalog
from blog.authoring import post_search, review, store
from blog.authoring.editor import bp
from blog.authoring.editor.refusals import refusal
from blog.extensions import db
from blog.fulltext import (
    SNIPPET_WINDOW,
    Term,
    body_excerpt,
    clean_query,
    limit_terms,
    marker,
    more_notice,
    notices,
    parse_query,
)
from blog.models import (
    DRAFT,
    IN_REVIEW,
    PUBLISHED,
    Author,
    Post,
    Topic,
    live,
    scheduled,
    utcnow,
)
from blog.web import htmx, paging
from blog.web.paging import page_number

# Swap targets on the post list and the template blocks that fill them.
LIST_FRAGMENTS = {"post-table": "post_table"}
REVIEW = "review"  # the review queue's filter: drafts waiting for an editor
FILTERS = {
    "": "All",
    DRAFT: "Drafts",
    REVIEW: "In review",
    catalog.SCHEDULED: "Scheduled",
    PUBLISHED: "Published",
}
# The post list's orders, newest first, and how many posts one of its pages holds.
SORTS = {"changed": "Last change", "published": "Publish date"}
DEFAULT_SORT = "changed"
POSTS_PER_LIST_PAGE = 50


def _state_filter(state: str) -> sa.ColumnElement[bool]:
    """The SQL condition for one of the list's quick filters."""
    if state == DRAFT:
        return Post.status == DRAFT
    if state == REVIEW:
        return review.in_review()
    if state == catalog.SCHEDULED:
        return scheduled()
    return live()


@dataclass(frozen=True)
class ListView:
    """What the post list shows, as its URL says: a status, a search, a topic, an author, an
    order and a page; and, for a search, the posts holding its words (`found`)."""

    state: str = ""
    search: str = ""
    topic: Topic | None = None
    author: Author | None = None
    sort: str = DEFAULT_SORT
    page: int = 1
    cut: bool = False  # the search was longer than searches may be: only its start is used
    found: post_search.Found | None = None
    terms: tuple[Term, ...] = ()  # what the search looked for, to mark in excerpts
    left_out: tuple[str, ...] = ()  # words of the search past the limit, not searched

    def url(self, **changes: Any) -> str:
        """This view's plain URL with some parts changed; defaults stay out of it."""
        view = replace(self, **changes)
        return url_for(
            "editor.index",
            status=view.state or None,
            q=view.search or None,
            topic=view.topic.slug if view.topic is not None else None,
            author=view.author.slug if view.author is not None else None,
            sort=view.sort if view.sort != DEFAULT_SORT else None,
            page=view.page if view.page > 1 else None,
        )

    @property
    def narrowed(self) -> bool:
        """True when anything but the status narrows the list."""
        return bool(self.search or self.topic or self.author)

    def narrowing(self) -> list[sa.ColumnElement[bool]]:
        """The SQL conditions of the topic and author chosen."""
        found: list[sa.ColumnElement[bool]] = []
        if self.topic is not None:
            found.append(catalog.in_topic(self.topic))
        if self.author is not None:
            found.append(catalog.credits(self.author))
        return found

    def conditions(self) -> list[sa.ColumnElement[bool]]:
        """The SQL conditions of the search, topic and author (the status is apart: the
        status tabs count each one within these). A search keeps the posts whose title holds
        its text as typed, and those holding its words anywhere (`found`)."""
        found = self.narrowing()
        if not current_user.publishes:  # a writer's list holds the posts they created
            found.append(Post.created_by_id == current_user.id)
        if self.search:
            # LIKE with % and _ (and the escape character) escaped: an editor's % is a %.
            titled = Post.title.icontains(self.search, autoescape=True)
            ids = self.found.ids if self.found is not None else ()
            found.append(sa.or_(titled, Post.id.in_(ids)) if ids else titled)
        return found

    def notices(self) -> list[str]:
        """What the list says about the search: what it cut, left out, or did not look at."""
        said = notices(self.cut, self.left_out)
        if self.found is not None and self.found.more:
            said.insert(0, more_notice(post_search.RANKED_MATCHES))
        return said


Named = TypeVar("Named", Author, Topic)


def _by_slug(slug: str, rows: Sequence[Named], what: str) -> Named | None:
    """The row among `rows` with this slug, None for "", 400 for one that does not exist."""
    if not slug:
        return None
    for row in rows:
        if row.slug == slug:
            return row
    abort(400, description=f"There is no {what} with that address: choose one from the list.")


def list_view(topics: Sequence[Topic], authors: Sequence[Author]) -> ListView:
    """The post list's view read from the query string (400 for a value it cannot show)."""
    args = request.args
    state = args.get("status", "")
    if state not in FILTERS:
        abort(
            400,
            description="The status filter must be draft, scheduled or published (or review: "
            "the drafts waiting for an editor).",
        )
    sort = args.get("sort", "") or DEFAULT_SORT
    if sort not in SORTS:
        abort(
            400,
            description="The list sorts by last change or publish date: ?sort=changed "
            "or ?sort=published.",
        )
    search, cut = clean_query(store.clean_text(args.get("q", "")))
    view = ListView(
        state=state,
        search=search,
        topic=_by_slug(args.get("topic", ""), topics, "topic"),
        author=_by_slug(args.get("author", ""), authors, "author"),
        sort=sort,
        page=page_number(),
        cut=cut,
    )
    if not search:
        return view
    # The words are searched as the readers' search reads them, among the posts this
    # editor may see in the topic and by the author chosen, whatever their status.
    query = limit_terms(parse_query(search))
    made_by = None if current_user.publishes else current_user.id
    found = post_search.matching_posts(query, view.narrowing(), made_by=made_by)
    return replace(view, found=found, terms=query.terms, left_out=query.left_out)


QUEUE = "queue"  # in state_counts: every draft waiting for an editor, whatever narrows the list


def state_counts(*conditions: sa.ColumnElement[bool]) -> dict[str, int]:
    """How many posts each quick filter holds, among those meeting `conditions`, and (QUEUE)
    how many drafts wait for review in all, in the same statement."""
    counts = {
        state: sa.func.count(Post.id).filter(_state_filter(state)) for state in FILTERS if state
    }
    waiting = so.aliased(Post)
    queue = (
        sa.select(sa.func.count(waiting.id))
        .where(waiting.status == DRAFT, waiting.review_state == IN_REVIEW)
        .scalar_subquery()
    )
    query = sa.select(sa.func.count(Post.id), *counts.values(), queue).where(*conditions)
    row = db.session.execute(query).one()
    return dict(zip(["", *counts, QUEUE], row, strict=True))


def post_page(view: ListView, total: int) -> paging.Page[Post]:
    """One page of the list, with each post's authors and primary topic in the same query."""
    newest: sa.UnaryExpression[Any] = (
        Post.published_at.desc().nulls_last()  # drafts never published come last
        if view.sort == "published"
        else Post.modified_at.desc()
    )
    query = (
        sa.select(Post)
        .options(
            so.load_only(
                Post.id,
                Post.slug,
                Post.title,
                Post.status,
                Post.published_at,
                Post.updated_at,
                Post.modified_at,
                Post.author_id,
                Post.primary_topic_id,
                Post.review_state,
            ),
            so.joinedload(Post.author),
            so.joinedload(Post.author_links),
            so.joinedload(Post.primary_topic),
            so.lazyload(Post.image),
        )
        .where(*view.conditions())
        .order_by(newest, Post.id.desc())
        .limit(POSTS_PER_LIST_PAGE)
        .offset((view.page - 1) * POSTS_PER_LIST_PAGE)
    )
    if view.state:
        query = query.where(_state_filter(view.state))
    posts = list(db.session.scalars(query).unique())
    return paging.Page(posts, view.page, POSTS_PER_LIST_PAGE, total)


def excerpts(view: ListView, posts: Sequence[Post]) -> dict[int, Markup]:
    """Where the search's words are in each listed post's body, as the readers' search cuts
    it (from the start of the rendered body, its words marked): one statement for the page."""
    pattern = marker(view.terms) if view.terms else None
    if pattern is None or not posts:
        return {}
    window = sa.func.substr(Post.body_html, 1, SNIPPET_WINDOW + 1)
    rows = db.session.execute(
        sa.select(Post.id, window).where(Post.id.in_([post.id for post in posts]))
    )
    found: dict[int, Markup] = {}
    for post_id, start in rows:
        cut = body_excerpt(start or "", pattern)
        if cut is not None:
            found[post_id] = cut
    return found


@bp.get("/")
def index() -> Response:
    """A page of posts with their state and dates: searched by their words (title, summary,
    body and topics), filtered by status, topic and author, sorted by last change or
    publish date."""
    topics = db.session.scalars(sa.select(Topic).order_by(Topic.position, Topic.name)).all()
    authors = db.session.scalars(sa.select(Author).order_by(Author.name, Author.id)).all()
    try:
        view = list_view(topics, authors)
        counts = state_counts(*view.conditions())
        total = counts[view.state]
        if view.page > paging.last_page(total, POSTS_PER_LIST_PAGE):
            abort(404, description="That page is past the end of the list.")
    except BadRequest as error:  # from the editor's own controls: an alert on the page
        return refusal(error, error.description or "The list cannot show that.")
    block = htmx.fragment_for(LIST_FRAGMENTS)
    page = post_page(view, total)
    response = htmx.render(
        "editor/index.html",
        block,
        page=page,
        excerpts=excerpts(view, page.posts),
        view=view,
        counts=counts,
        state=view.state,
        filters=FILTERS,
        sorts=SORTS,
        search_notices=view.notices(),
        topics=topics,
        authors=authors,
        state_of=review.state_in_editor,
        state_labels=review.STATE_LABELS,
        now=utcnow(),
        queue=counts[QUEUE] if current_user.publishes else None,
    )
    if block is not None:
        # The form sends every control, empty ones too: the address bar gets the short URL.
        response.headers["HX-Push-Url"] = view.url()
    return response
