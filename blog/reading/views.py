"""Reader-facing pages: the listing, its topic and author pages, and the post page."""

from __future__ import annotations

from typing import cast

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
from werkzeug.wrappers import Response as BaseResponse

from blog.authoring import store, taxonomy
from blog.reading import authors, listing, search, seo
from blog.web import htmx, validators
from blog.web.headers import cacheable
from blog.web.pagecache import CachedRoute
from blog.web.params import page_number

bp = Blueprint("public", __name__)

# Swap targets on the listing pages (all posts, a topic's, an author's) and the blocks of
# public/listing.html that fill them.
LISTING_FRAGMENTS = {"all-posts": "all_posts", "post-list": "more_posts"}
# What each page reads of a request besides its path: the page cache keys on exactly this.
CACHED_ROUTES = {
    "public.home": CachedRoute(("page",), LISTING_FRAGMENTS),
    "public.topic": CachedRoute(("page",), LISTING_FRAGMENTS),
    "public.author": CachedRoute(("page",), LISTING_FRAGMENTS),
    "public.post": CachedRoute(),
    # Feeds and the sitemap read nothing but their path; the sitemap costs a scan of every
    # live post, so it is rendered once per data version.
    "feeds.blog_feed": CachedRoute(),
    "feeds.topic_feed": CachedRoute(),
    "feeds.author_feed": CachedRoute(),
    "seo.sitemap": CachedRoute(),
    # Popular searches, and the prefixes typed on the way to them, render once per version.
    "search.search_page": CachedRoute(("q", "topic", "page"), search.SEARCH_FRAGMENTS),
}


def _listing(topic_slug: str | None = None, author_slug: str | None = None) -> Response:
    """Render the listing of all posts, of one topic's or of one author's, at the requested
    page."""
    number = page_number()
    block = htmx.fragment_for(LISTING_FRAGMENTS)
    found = listing.topic_filter()
    check = validators.validator(
        "listing", topic_slug, author_slug, number, block, state=found.state
    )
    early = validators.not_modified(check, vary=htmx.VARY, personal=True)
    if early is not None:
        return early
    config = current_app.config
    per_page = config["POSTS_PER_PAGE"]
    topic, author, listed = None, None, found.total
    if topic_slug is not None:
        entry = found.of(topic_slug)
        if entry is None:
            moved = _renamed_topic(topic_slug, found)
            if moved is not None:
                return moved
            abort(404, description="There is no topic by that name.")
        topic, listed = entry.topic, entry.count
    if author_slug is not None:
        profile = listing.author_by_slug(author_slug)
        if profile is None:
            abort(404, description="There is no author by that name.")
        author, listed = profile.author, profile.count
    if number > listing.last_page(listed, per_page):
        abort(404, description="That page is past the end of the list.")
    # Featured and picks sit outside the swapped regions: read them only when shown. An
    # author's page is about their posts alone.
    home = topic is None and author is None
    shown = listing.cards(
        topic,
        number,
        per_page,
        author=author,
        featured=block is None and author is None,
        picks=config["PICKS_COUNT"] if home and block in (None, "all_posts") else 0,
    )
    page = listing.Page(shown.page, number, per_page, listed)
    meta = None
    if block is None:
        meta = (
            authors.author_meta(author, page)
            if author is not None
            else seo.listing_meta(topic, page, shown.featured)
        )
    response = htmx.render(
        "public/listing.html",
        block,
        title=seo.listing_title(author or topic, number),
        topic=topic,
        author=author,
        page=page,
        topics=found.topics,
        footer_topics=found.topics,
        total=found.total,
        featured=shown.featured,
        picks=shown.picks,
        meta=meta,
    )
    return cacheable(response, check, vary=htmx.VARY, personal=True)


def _renamed_topic(old_slug: str, found: listing.TopicFilter) -> Response | None:
    """301 to the present address of a topic renamed or merged away, when that one has live
    posts (any page number and query string carried over), else None."""
    current = taxonomy.current_topic_slug(old_slug) if old_slug.isprintable() else None
    if current is None or found.of(current) is None:
        return None
    target = url_for("public.topic", slug=current)
    query = request.query_string.decode("utf-8", "replace")
    return cast(Response, redirect(f"{target}?{query}" if query else target, 301))


@bp.get("/")
def home() -> Response:
    """The listing of every topic."""
    return _listing(None)


@bp.get("/topics/<slug>")
def topic(slug: str) -> Response:
    """The listing of one topic."""
    return _listing(topic_slug=slug)


@bp.get("/authors/<slug>")
def author(slug: str) -> Response:
    """An author's page: who they are, and their posts."""
    return _listing(author_slug=slug)


@bp.get("/posts/<slug>")
def post(slug: str) -> BaseResponse:
    """One post, rendered from its stored, sanitized HTML."""
    # The footer's topics come with the site's state, in the statement that reads it alone.
    found_topics = listing.topic_filter()
    check = validators.validator("post", slug, state=found_topics.state)
    early = validators.not_modified(check, personal=True)
    if early is not None:
        return early
    if not slug.isprintable():  # PostgreSQL refuses NUL in text; no slug holds one anyway
        abort(404, description="There is no post at this address.")
    found = listing.post_by_slug(slug)
    if found is None:
        current = store.current_slug_for(slug)
        if current is not None and current != slug:  # a renamed post keeps its address
            return redirect(url_for("public.post", slug=current), 301)
        abort(404, description="There is no post at this address.")
    newer, older = listing.neighbours(found)
    body = render_template(
        "public/post.html",
        post=found,
        meta=seo.post_meta(found),
        related=listing.related(found),
        newer=newer,
        older=older,
        footer_topics=found_topics.topics,
    )
    return cacheable(make_response(body), check, personal=True)
