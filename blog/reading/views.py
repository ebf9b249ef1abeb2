"""Reader-facing pages: the listing, its topic pages and the post page."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, make_response, redirect, render_template, url_for
from flask.wrappers import Response
from werkzeug.wrappers import Response as BaseResponse

from blog.authoring import store
from blog.reading import listing, search, seo
from blog.web import htmx, validators
from blog.web.headers import cacheable
from blog.web.pagecache import KeptRoute
from blog.web.params import page_number

bp = Blueprint("public", __name__)

# Swap targets on the listing page and the blocks of public/listing.html that fill them.
LISTING_FRAGMENTS = {"all-posts": "all_posts", "post-list": "more_posts"}
# What each page reads of a request besides its path: the page cache keys on exactly this.
KEPT_ROUTES = {
    "public.home": KeptRoute(("page",), LISTING_FRAGMENTS),
    "public.topic": KeptRoute(("page",), LISTING_FRAGMENTS),
    "public.post": KeptRoute(),
    # Feeds and the sitemap read nothing but their path; the sitemap costs a scan of every
    # live post, so it is rendered once per data version.
    "feeds.blog_feed": KeptRoute(),
    "feeds.topic_feed": KeptRoute(),
    "seo.sitemap": KeptRoute(),
    # Popular searches, and the prefixes typed on the way to them, render once per version.
    "search.search_page": KeptRoute(("q", "topic", "page"), search.SEARCH_FRAGMENTS),
}


def _listing(topic_slug: str | None) -> Response:
    """Render the listing for all topics or for one, at the requested page."""
    number = page_number()
    block = htmx.fragment_for(LISTING_FRAGMENTS)
    found = listing.topic_filter()
    check = validators.validator("listing", topic_slug, number, block, state=found.state)
    early = validators.not_modified(check, vary=htmx.VARY, personal=True)
    if early is not None:
        return early
    config = current_app.config
    per_page = config["POSTS_PER_PAGE"]
    topic, topic_total = None, found.total
    if topic_slug is not None:
        entry = found.of(topic_slug)
        if entry is None:
            abort(404, description="There is no topic by that name.")
        topic, topic_total = entry.topic, entry.count
    if number > listing.last_page(topic_total, per_page):
        abort(404, description="That page is past the end of the list.")
    # Featured and picks sit outside the swapped regions: read them only when shown.
    shown = listing.cards(
        topic,
        number,
        per_page,
        featured=block is None,
        picks=config["PICKS_COUNT"] if topic is None and block in (None, "all_posts") else 0,
    )
    page = listing.Page(shown.page, number, per_page, topic_total)
    response = htmx.render(
        "public/listing.html",
        block,
        title=seo.listing_title(topic, number),
        topic=topic,
        page=page,
        topics=found.topics,
        total=found.total,
        featured=shown.featured,
        picks=shown.picks,
        meta=seo.listing_meta(topic, page, shown.featured) if block is None else None,
    )
    return cacheable(response, check, vary=htmx.VARY, personal=True)


@bp.get("/")
def home() -> Response:
    """The listing of every topic."""
    return _listing(None)


@bp.get("/topics/<slug>")
def topic(slug: str) -> Response:
    """The listing of one topic."""
    return _listing(slug)


@bp.get("/posts/<slug>")
def post(slug: str) -> BaseResponse:
    """One post, rendered from its stored, sanitized HTML."""
    check = validators.validator("post", slug)
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
    )
    return cacheable(make_response(body), check, personal=True)
