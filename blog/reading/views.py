"""Reader-facing pages: the listing, its topic and author pages, and the post page."""

from __future__ import annotations

from typing import cast

from flask import (
    Blueprint,
    abort,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.wrappers import Response
from werkzeug.exceptions import NotFound
from werkzeug.wrappers import Response as BaseResponse

from blog import catalog
from blog.reading import authors, listing, search, seo
from blog.web import errors, htmx, validators
from blog.web.pagecache import CachedRoute
from blog.web.paging import page_number

bp = Blueprint("public", __name__)

# Swap targets on the listing pages (all posts, a topic's, an author's) and the blocks of
# public/listing.html that fill them.
LISTING_FRAGMENTS = {"all-posts": "all_posts", "post-list": "more_posts"}
# What each page reads of a request besides its path: the page cache keys on exactly this.
CACHED_ROUTES = {
    # `p` and `page_id`: a WordPress address (`/?p=ID`) of a moved post, answered with a 301.
    "public.home": CachedRoute(("page", "p", "page_id"), LISTING_FRAGMENTS),
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
    page: the whole page, or with htmx the fragment it swaps."""
    number = page_number()
    block = htmx.fragment_for(LISTING_FRAGMENTS)
    found = listing.topic_filter()
    # The path names whose listing it is; the page and the fragment, which state of it.
    check = validators.validator("listing", request.path, number, block, state=found.state)
    early = validators.not_modified(check, vary=htmx.VARY, personal=True)
    if early is not None:
        return early
    shown = listing.listing_of(found, number, block, topic_slug=topic_slug, author_slug=author_slug)
    if isinstance(shown, listing.Moved):
        return _moved(shown.slug)
    meta = None
    if block is None:
        meta = (
            authors.author_meta(shown.author, shown)
            if shown.author is not None
            else seo.listing_meta(shown)
        )
    response = htmx.render(
        "public/listing.html",
        block,
        title=shown.title,
        topic=shown.topic,
        author=shown.author,
        page=shown.page,
        topics=found.topics,
        footer_topics=found.topics,
        total=found.total,
        featured=shown.featured,
        picks=shown.picks,
        meta=meta,
    )
    return validators.cacheable(response, check, vary=htmx.VARY, personal=True)


def _moved(slug: str) -> Response:
    """301 to the present address of a renamed or merged topic, with any page number and
    query string carried over."""
    target = url_for("public.topic", slug=slug)
    query = request.query_string.decode("utf-8", "replace")
    return cast(Response, redirect(f"{target}?{query}" if query else target, 301))


@bp.get("/")
def home() -> BaseResponse:
    """The listing of every topic; a moved WordPress post's `/?p=ID` leads to the post."""
    if "p" in request.args or "page_id" in request.args:
        current = catalog.slug_for_address(request.full_path)
        if current is not None:
            return redirect(url_for("public.post", slug=current), 301)
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
        current = catalog.current_slug_for(slug)
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
    return validators.cacheable(make_response(body), check, personal=True)


@bp.app_errorhandler(NotFound)
def old_address(error: NotFound) -> BaseResponse:
    """Any address that finds nothing: a 301 to the post that had it as an old path on the
    site it was moved from, else the site's 404 page. Pages answer first, so an old path
    never shadows one."""
    if request.method in ("GET", "HEAD"):
        current = catalog.slug_for_address(request.full_path)
        if current is not None:
            return redirect(url_for("public.post", slug=current), 301)
    return errors.error_page(404, error.description)
