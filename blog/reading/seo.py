"""What search engines and link previews read: absolute URLs, page metadata, sitemap, robots.

Absolute URLs are built on the configured SITE_URL, never on the request's Host header, so a
forged Host cannot leak into a canonical link, a feed or the sitemap.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypeVar
from urllib.parse import urlsplit

import orjson
from flask import Blueprint, Flask, current_app, has_request_context, request, url_for
from flask.wrappers import Response
from jinja2.utils import htmlsafe_json_dumps
from markupsafe import Markup
from werkzeug.wrappers import Response as BaseResponse

from blog.media.images import image_url
from blog.media.previews import LOGO_FILE, LOGO_SIZE, link_picture, logo_url
from blog.models import Post
from blog.reading import listing
from blog.reading.listing import ListedTopic
from blog.web import headers, validators
from blog.web.static import static_digest

bp = Blueprint("seo", __name__)
Built = TypeVar("Built")

SCHEMA_CONTEXT = "https://schema.org"
FEED_TYPES = {"atom": "application/atom+xml", "rss": "application/rss+xml"}
SITEMAP_NAMESPACE = "http://www.sitemaps.org/schemas/sitemap/0.9"
# Paths kept out of search engines by robots.txt: the authoring pages, draft links and the
# one-time account links (each page also says noindex; this keeps crawlers from asking).
PRIVATE_PATHS = ("/editor", "/login", "/drafts/", "/account/")

# A slug that reads the same quoted or not.
_PLAIN_SLUG = re.compile(r"[a-z0-9-]+")
# Characters XML 1.0 cannot carry at all; a title holding one would make a feed unreadable.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str | None) -> str:
    """Text with the characters XML forbids removed."""
    return _NOT_XML.sub("", text or "")


def site_url() -> str:
    """The configured public address of the home page, without a trailing slash."""
    return current_app.config["SITE_URL"].rstrip("/")


def absolute_url(path: str) -> str:
    """An absolute URL for a path of this app (as url_for returns it) on SITE_URL."""
    if not path.startswith("/") and urlsplit(path).scheme:  # a path needs no parsing
        return path
    root = request.script_root if has_request_context() else ""
    if root and path.startswith(root + "/"):
        path = path[len(root) :]
    return site_url() + "/" + path.lstrip("/")


def external_url(endpoint: str, **values: Any) -> str:
    """url_for made absolute on SITE_URL."""
    return absolute_url(url_for(endpoint, **values))


def _per_settings(key: tuple[Any, ...], build: Callable[[], Built]) -> Built:
    """A value that only settings and `key` decide, built once per app and key: pages ask
    for the same few on every render. `key` must hold every setting `build` reads."""
    known = current_app.extensions.setdefault("fieldnotes_per_settings", {})
    value = known.get(key)
    if value is None:
        value = known[key] = build()
    return value


def fixed_url(endpoint: str, **values: Any) -> str:
    """external_url for an address no data can change (the home page, a feed)."""
    key = ("url", endpoint, tuple(sorted(values.items())), current_app.config["SITE_URL"])
    return _per_settings(key, lambda: external_url(endpoint, **values))


def post_urls() -> Callable[[str], str]:
    """slug → the post's absolute URL, for pages that link many posts."""
    return slug_urls("public.post")


def slug_urls(endpoint: str) -> Callable[[str], str]:
    """slug → the absolute URL of a page addressed by a slug (a post, an author): the URL is
    built once and each slug is quoted into its place by the route's own converter."""
    marker = "0-slug-0"
    head, _, tail = fixed_url(endpoint, slug=marker).rpartition(marker)
    to_url = _slug_converter().to_url
    # Saved slugs are lowercase letters, digits and dashes, which need no quoting.
    safe = _PLAIN_SLUG.fullmatch
    return lambda slug: f"{head}{slug if safe(slug) else to_url(slug)}{tail}"


def _slug_converter() -> Any:
    """The converter the post route quotes slugs with (one per app)."""
    found = current_app.extensions.get("fieldnotes_slug_converter")
    if found is None:
        url_map = current_app.url_map
        found = current_app.extensions["fieldnotes_slug_converter"] = url_map.converters["default"](
            url_map
        )
    return found


def iso_datetime(value: datetime | None) -> str:
    """A stored (naive UTC) time as ISO 8601 with its offset, for metadata and sitemaps."""
    return f"{value.isoformat()}+00:00" if value else ""  # what an aware UTC time would print


def json_ld(data: Mapping[str, Any]) -> Markup:
    """JSON for a <script type="application/ld+json"> that no text can break out of.

    `<`, `>`, `&` and `'` become \\u escapes, so `</script>` or `<!--` in a title stays
    inside the JSON string.
    """
    return htmlsafe_json_dumps(data, dumps=_compact_json)


def _compact_json(data: Any) -> str:
    """Compact JSON with characters as they are: orjson's, which is an order of magnitude
    faster, or the standard library's for text orjson refuses (lone surrogates)."""
    try:
        return orjson.dumps(data).decode()
    except orjson.JSONEncodeError:
        return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class FeedLink:
    """An autodiscovery <link> for a feed."""

    title: str
    href: str
    type: str


@dataclass(frozen=True)
class PreviewImage:
    """A page's preview picture with an absolute URL."""

    url: str
    alt: str
    width: int
    height: int
    type: str | None


@dataclass(frozen=True)
class PageMeta:
    """Everything templates/_meta.html puts in <head> for one public page."""

    title: str
    description: str
    canonical: str
    og_type: str
    image: PreviewImage | None
    json_ld: Markup | None
    feeds: Sequence[FeedLink]
    published: str = ""
    modified: str = ""
    section: str = ""
    tags: list[str] = field(default_factory=list)


def feed_links(topic: ListedTopic | None = None) -> tuple[FeedLink, ...]:
    """The blog's feeds, and the topic's when a topic is given."""
    config = current_app.config
    names = (topic.slug, topic.name) if topic is not None else None
    key = ("feeds", names, config["SITE_NAME"], config["SITE_URL"])
    return _per_settings(key, lambda: _feed_links(topic))


def _feed_links(topic: ListedTopic | None) -> tuple[FeedLink, ...]:
    """feed_links, built."""
    name = current_app.config["SITE_NAME"]
    links = [
        FeedLink(name, fixed_url("feeds.blog_feed", kind="atom"), "application/atom+xml"),
        FeedLink(f"{name} (RSS)", fixed_url("feeds.blog_feed", kind="rss"), "application/rss+xml"),
    ]
    if topic is not None:
        title = f"{topic.name} · {name}"
        links += [
            FeedLink(
                title,
                fixed_url("feeds.topic_feed", slug=topic.slug, kind="atom"),
                "application/atom+xml",
            ),
            FeedLink(
                f"{title} (RSS)",
                fixed_url("feeds.topic_feed", slug=topic.slug, kind="rss"),
                "application/rss+xml",
            ),
        ]
    return tuple(links)


def post_image(post: Post | listing.Card) -> PreviewImage:
    """The post's picture for previews (never an SVG), with an absolute URL and its alt text."""
    pic = link_picture(post)
    return PreviewImage(absolute_url(pic.src), pic.alt, pic.width, pic.height, pic.type)


def _publisher() -> dict[str, Any]:
    """The blog as publisher in structured data, with its logo (shared: never change it)."""
    config = current_app.config
    key = ("publisher", config["SITE_NAME"], config["SITE_URL"], static_digest(LOGO_FILE))
    return _per_settings(key, _build_publisher)


def _build_publisher() -> dict[str, Any]:
    """_publisher, built."""
    publisher: dict[str, Any] = {
        "@type": "Organization",
        "name": current_app.config["SITE_NAME"],
        "url": fixed_url("public.home"),
    }
    logo = logo_url()
    if logo is not None:
        publisher["logo"] = {
            "@type": "ImageObject",
            "url": absolute_url(logo),
            "width": LOGO_SIZE,
            "height": LOGO_SIZE,
        }
    return publisher


def person(name: str, slug: str, author_url: Callable[[str], str] | None = None) -> dict[str, Any]:
    """An author in structured data: their name and their page (`author_url` is
    slug_urls("public.author"), for callers that name many authors)."""
    url = (author_url or slug_urls("public.author"))(slug)
    return {"@type": "Person", "name": name, "url": url}


def postings(cards: Sequence[listing.Card]) -> list[dict[str, Any]]:
    """A listing's cards as BlogPostings, for the JSON-LD of the pages that list them."""
    post_url, author_url = post_urls(), slug_urls("public.author")
    return [
        {
            "@type": "BlogPosting",
            "headline": card.title,
            "url": post_url(card.slug),
            "datePublished": iso_datetime(card.published_at),
            "author": [person(author.name, author.slug, author_url) for author in card.authors],
        }
        for card in cards
    ]


def post_modified(post: Post) -> datetime | None:
    """When the post last changed as readers see it: its revision date, else publication."""
    return post.updated_at if post.was_updated else post.published_at


def social_image(post: Post) -> PreviewImage | None:
    """The picture the editor chose for link previews, described by the post's title."""
    image = post.social_image
    if image is None:
        return None
    return PreviewImage(
        absolute_url(image_url(image)), post.title, image.width, image.height, image.content_type
    )


def post_meta(post: Post) -> PageMeta:
    """Metadata for a post page: an article with a BlogPosting description (the editor's
    meta description and social image, else the excerpt and the post's picture)."""
    canonical = external_url("public.post", slug=post.slug)
    image = social_image(post) or post_image(post)
    description = post.meta_description or post.excerpt
    topics = [topic.name for topic in post.topics]
    data: dict[str, Any] = {
        "@context": SCHEMA_CONTEXT,
        "@type": "BlogPosting",
        "headline": post.title,
        "description": description,
        "url": canonical,
        "mainEntityOfPage": canonical,
        "datePublished": iso_datetime(post.published_at),
        "dateModified": iso_datetime(post_modified(post)),
        "author": [person(author.name, author.slug) for author in post.authors],
        "publisher": _publisher(),
        "isPartOf": {
            "@type": "Blog",
            "name": current_app.config["SITE_NAME"],
            "url": fixed_url("public.home"),
        },
        "image": {
            "@type": "ImageObject",
            "url": image.url,
            "width": image.width,
            "height": image.height,
            "caption": image.alt,
        },
        "keywords": topics,
    }
    if topics:
        data["articleSection"] = topics[0]
    return PageMeta(
        title=post.title,
        description=description,
        canonical=canonical,
        og_type="article",
        image=image,
        json_ld=json_ld(data),
        feeds=feed_links(),
        published=iso_datetime(post.published_at),
        modified=iso_datetime(post_modified(post)),
        section=topics[0] if topics else "",
        tags=topics,
    )


@dataclass(frozen=True)
class _ListingHead:
    """What a listing's head metadata takes from the settings alone, built once per topic."""

    title: str
    description: str
    canonical: str  # of page 1
    feeds: tuple[FeedLink, ...]
    blog: dict[str, Any]  # the page's JSON-LD without its posts (a Blog, a CollectionPage)


def _listing_head(topic: ListedTopic | None) -> _ListingHead:
    """The listing's head metadata, built once per settings and topic (see `_per_settings`)."""
    config = current_app.config
    names = (topic.slug, topic.name) if topic is not None else None
    key = ("listing", names, config["SITE_NAME"], config["SITE_URL"], config["SITE_DESCRIPTION"])
    return _per_settings(key, lambda: _build_listing_head(topic))


def _build_listing_head(topic: ListedTopic | None) -> _ListingHead:
    """_listing_head, built."""
    config = current_app.config
    home = fixed_url("public.home")
    canonical = home if topic is None else external_url("public.topic", slug=topic.slug)
    if topic is None:
        blog = {
            "@context": SCHEMA_CONTEXT,
            "@type": "Blog",
            "name": config["SITE_NAME"],
            "description": config["SITE_DESCRIPTION"],
            "url": home,
            "publisher": _publisher(),
        }
    else:
        blog = {
            "@context": SCHEMA_CONTEXT,
            "@type": "CollectionPage",
            "name": listing.listing_title(topic, 1),
            "url": canonical,
            "about": {"@type": "Thing", "name": topic.name},
            "isPartOf": {"@type": "Blog", "name": config["SITE_NAME"], "url": home},
        }
    return _ListingHead(
        title=listing.listing_title(topic, 1),
        description=config["SITE_DESCRIPTION"],
        canonical=canonical,
        feeds=feed_links(topic),
        blog=blog,
    )


def listing_meta(shown: listing.Listing) -> PageMeta:
    """Metadata for a listing page; the home page also describes the blog in JSON-LD."""
    topic, page, featured = shown.topic, shown.page, shown.featured
    head = _listing_head(topic)
    title, canonical = head.title, head.canonical
    if page.number > 1:
        title = listing.listing_title(topic, page.number)
        if topic is None:
            canonical = external_url("public.home", page=page.number)
        else:
            canonical = external_url("public.topic", slug=topic.slug, page=page.number)
    # A Blog lists its posts as blogPost; a topic's CollectionPage has them as its parts.
    posts = "blogPost" if topic is None else "hasPart"
    data = json_ld({**head.blog, posts: postings(page.posts)})
    pictured = featured or (page.posts[0] if page.posts else None)
    return PageMeta(
        title=title,
        description=head.description,
        canonical=canonical,
        og_type="website",
        image=post_image(pictured) if pictured is not None else None,
        json_ld=data,
        feeds=head.feeds,
    )


# --- sitemap.xml and robots.txt ----------------------------------------------------------


def _url(parent: ET.Element, loc: str, lastmod: datetime | None) -> None:
    """Append one <url> with its <loc> and, when known, <lastmod>."""
    entry = ET.SubElement(parent, "url")
    ET.SubElement(entry, "loc").text = xml_safe(loc)
    if lastmod is not None:
        ET.SubElement(entry, "lastmod").text = iso_datetime(lastmod)


def sitemap_xml() -> bytes:
    """The sitemap: the home page, every topic listing, every author page and every live
    post."""
    root = ET.Element("urlset", xmlns=SITEMAP_NAMESPACE)
    posts = listing.sitemap_posts()
    newest = max((entry.lastmod for entry in posts), default=None)
    _url(root, external_url("public.home"), newest)
    for entry in listing.sitemap_topics():
        _url(root, external_url("public.topic", slug=entry.slug), entry.lastmod)
    author_url = slug_urls("public.author")
    for entry in listing.sitemap_authors():
        _url(root, author_url(entry.slug), entry.lastmod)
    post_url = post_urls()
    for entry in posts:
        _url(root, post_url(entry.slug), entry.lastmod)
    return ET.tostring(root, encoding="utf-8", xml_declaration=True)


@bp.get("/sitemap.xml")
def sitemap() -> Response:
    """Every public page worth indexing, with when it last changed."""
    check = validators.validator("sitemap")
    mimetype = "application/xml"
    early = validators.not_modified(check, mimetype=mimetype)
    if early is not None:
        return early
    return validators.cacheable(Response(sitemap_xml(), mimetype=mimetype), check)


def robots_txt() -> str:
    """robots.txt: everything may be crawled but the authoring pages; where the sitemap is."""
    prefix = urlsplit(site_url()).path.rstrip("/")
    lines = ["User-agent: *"]
    lines += [f"Disallow: {prefix}{path}" for path in PRIVATE_PATHS]
    lines += ["", f"Sitemap: {external_url('seo.sitemap')}", ""]
    return "\n".join(lines)


@bp.get("/robots.txt")
def robots() -> BaseResponse:
    """Directions for crawlers; it changes only with the settings."""
    response = Response(robots_txt(), mimetype="text/plain")
    response.add_etag(weak=True)
    headers.public_cache_control(response)
    return response.make_conditional(request)


def check_site_url(app: Flask) -> None:
    """Refuse to start with a SITE_URL that cannot prefix absolute links."""
    value = app.config.get("SITE_URL") or ""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise RuntimeError(
            f"SITE_URL must be an http(s) address like https://blog.example.com, not {value!r}."
        )


def init_app(app: Flask) -> None:
    """Check SITE_URL and give templates the helpers they need."""
    check_site_url(app)
    app.jinja_env.globals["feed_links"] = feed_links
