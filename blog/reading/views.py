"""Reader-facing pages: the listing, its topic pages and the post page."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from flask import (
    Blueprint,
    abort,
    current_app,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.wrappers import Response

from blog.authoring import store
from blog.cards import Named
from blog.reading import listing, seo
from blog.web import caching, htmx, pagecache

bp = Blueprint("public", __name__)

# Swap targets on the listing page and the blocks of public/listing.html that fill them.
LISTING_FRAGMENTS = {"all-posts": "all_posts", "post-list": "more_posts"}


def _page_number() -> int:
    """The `page` query parameter as a positive whole number (400 otherwise)."""
    if not request.query_string:  # the common case: skip parsing the query
        return 1
    raw = request.args.get("page", "1")
    if not (raw.isascii() and raw.isdigit()) or len(raw) > 9:
        abort(400, description="The page number must be a whole number, like ?page=2.")
    number = int(raw)
    if number < 1:
        abort(400, description="Page numbers start at 1.")
    return number


def _render_and_keep(
    check: caching.Validator, render: Callable[[], Response], vary: Iterable[str] = ()
) -> Response:
    """A fresh render, handed to the page cache (blog/pagecache.py) to keep."""
    response = pagecache.keep(check, render())
    return caching.cacheable(response, check, vary=vary, personal=True)


def _listing(topic_slug: str | None) -> Response:
    """Render the listing for all topics or for one, at the requested page."""
    number = _page_number()
    block = htmx.fragment_for(LISTING_FRAGMENTS)
    config = current_app.config
    per_page = config["POSTS_PER_PAGE"]
    # Featured and picks sit outside the swapped regions: read them only when shown.
    slots = listing.shown_slots(
        featured=block is None,
        picks=config["PICKS_COUNT"] if topic_slug is None and block in (None, "all_posts") else 0,
    )
    # The state row and the page come in one statement; an unchanged page then answers 304.
    found = caching.current(lambda: listing.read(topic_slug, number, per_page, slots))
    check = caching.validator("listing", topic_slug, number, block, state=found.state)
    early = caching.not_modified(check, vary=htmx.VARY, personal=True)
    if early is not None:
        return early

    def render() -> Response:
        counts = listing.topic_counts(found.state.topics)
        total = found.state.live_count
        topic: Named | None = None
        topic_total = total
        if topic_slug is not None:
            match = next((c for c in counts if c.topic.slug == topic_slug), None)
            if match is None:
                abort(404, description="There is no topic by that name.")
            topic, topic_total = match.topic, match.count
        if number > listing.last_page(topic_total, per_page):
            abort(404, description="That page is past the end of the list.")
        page = listing.Page(found.cards, number, per_page, topic_total)
        return htmx.render(
            "public/listing.html",
            block,
            topic=topic,
            page=page,
            counts=counts,
            total=total,
            featured=found.featured,
            picks=found.picks,
            meta=seo.listing_meta(topic, page, found.featured) if block is None else None,
        )

    return _render_and_keep(check, render, htmx.VARY)


@bp.get("/")
def home() -> Response:
    """The listing of every topic."""
    return _listing(None)


@bp.get("/topics/<slug>")
def topic(slug: str) -> Response:
    """The listing of one topic."""
    return _listing(slug)


@bp.get("/posts/<slug>")
def post(slug: str) -> Response:
    """One post, rendered from its stored, sanitized HTML."""
    check = caching.validator("post", slug)
    early = caching.not_modified(check, personal=True)
    if early is not None:
        return early

    def render() -> Response:
        if not slug.isprintable():  # PostgreSQL refuses NUL in text; no slug holds one anyway
            abort(404, description="There is no post at this address.")
        found = listing.post_by_slug(slug)
        if found is None:
            current = store.current_slug_for(slug)
            if current is not None and current != slug:  # a renamed post keeps its address
                return redirect(url_for("public.post", slug=current), 301)
            abort(404, description="There is no post at this address.")
        body = render_template("public/post.html", post=found, meta=seo.post_meta(found))
        return make_response(body)

    return _render_and_keep(check, render)
