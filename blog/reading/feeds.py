"""Atom and RSS feeds of the whole blog and of each topic, built with feedgen."""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import UTC, datetime
from urllib.parse import urlsplit

from feedgen.feed import FeedGenerator
from flask import Blueprint, abort, current_app
from flask.wrappers import Response
from lxml import html as lxml_html

from blog.models import Post, Topic
from blog.reading import listing
from blog.reading.seo import (
    FEED_TYPES,
    absolute_url,
    external_url,
    post_modified,
    post_urls,
    xml_safe,
)
from blog.web import headers, validators

bp = Blueprint("feeds", __name__)

FEED_SIZE = 20
MIMETYPES = FEED_TYPES
# What a feed says it was updated at when it has no entry yet.
EPOCH = datetime(1970, 1, 1)


def _aware(value: datetime) -> datetime:
    """A stored naive UTC time with its zone attached, as feedgen requires."""
    return value.replace(tzinfo=UTC)


def absolute_links(fragment: str, base: str) -> str:
    """Post HTML with every link and source made absolute against `base`.

    Feed readers show entries away from the site, where relative links would break.
    """
    if not fragment.strip():
        return ""
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    root.make_links_absolute(base, resolve_base_href=False)
    inner = html.escape(root.text or "", quote=False)
    inner += "".join(lxml_html.tostring(child, encoding="unicode") for child in root)
    return inner


def entry_id(post: Post) -> str:
    """A permanent id for a post's entry: it survives slug changes and title edits."""
    host = urlsplit(current_app.config["SITE_URL"]).hostname or "localhost"
    return f"tag:{host},{post.created_at:%Y-%m-%d}:posts/{post.id}"


def build_feed(posts: Sequence[Post], kind: str, topic: Topic | None = None) -> bytes:
    """The Atom or RSS document for these posts, newest first."""
    site = current_app.config["SITE_NAME"]
    title = f"{topic.name} · {site}" if topic else site
    if topic is None:
        page_url = external_url("public.home")
        self_url = external_url("feeds.blog_feed", kind=kind)
    else:
        page_url = external_url("public.topic", slug=topic.slug)
        self_url = external_url("feeds.topic_feed", slug=topic.slug, kind=kind)

    feed = FeedGenerator()
    feed.load_extension("dc")
    feed.id(page_url)
    feed.title(xml_safe(title))
    feed.subtitle(xml_safe(current_app.config["SITE_DESCRIPTION"]))
    feed.description(xml_safe(current_app.config["SITE_DESCRIPTION"]))
    # feedgen's RSS <link> is the last link added: the page, not the feed itself.
    feed.link(href=self_url, rel="self", type=MIMETYPES[kind])
    feed.link(href=page_url, rel="alternate", type="text/html")
    feed.language("en")
    feed.generator(site)
    feed.docs("")  # the RSS <docs> element is optional; leave it out

    updated = [post_modified(post) or EPOCH for post in posts]
    feed.updated(_aware(max(updated, default=EPOCH)))
    feed.lastBuildDate(_aware(max(updated, default=EPOCH)))

    # feedgen prepends entries by default; append keeps newest first.
    post_url = post_urls()
    for post, modified in zip(posts, updated, strict=True):
        url = post_url(post.slug)
        entry = feed.add_entry(order="append")
        entry.id(entry_id(post))
        entry.title(xml_safe(post.title))
        entry.link(href=url, rel="alternate", type="text/html")
        if kind == "atom":
            entry.summary(xml_safe(post.excerpt))  # type="text": readers show it as is
        else:
            # RSS descriptions are read as HTML: escape so the excerpt stays plain text.
            entry.description(html.escape(xml_safe(post.excerpt), quote=False))
        entry.content(xml_safe(absolute_links(post.body_html, url)), type="html")
        entry.author(name=xml_safe(post.author.name))
        entry.dc.dc_creator(xml_safe(post.author.name))
        for topic_of_post in post.topics:
            entry.category(
                term=xml_safe(topic_of_post.name),
                scheme=absolute_url("/topics/"),
                label=xml_safe(topic_of_post.name),
            )
        if post.published_at is not None:
            entry.published(_aware(post.published_at))
        entry.updated(_aware(modified))
    return feed.atom_str() if kind == "atom" else feed.rss_str()


def _feed(kind: str, slug: str | None) -> Response:
    """Answer a feed request: 304 when unchanged, else the rendered feed."""
    mimetype = MIMETYPES[kind]
    check = validators.validator("feed", kind, slug)
    early = validators.not_modified(check, mimetype=mimetype)
    if early is not None:
        return early
    topic = None
    if slug is not None:
        topic = listing.topic_by_slug(slug)
        if topic is None:
            abort(404, description="There is no topic by that name.")
    body = build_feed(listing.newest_posts(FEED_SIZE, topic), kind, topic)
    return headers.cacheable(Response(body, mimetype=mimetype), check)


@bp.get("/feed.<any(atom, rss):kind>")
def blog_feed(kind: str) -> Response:
    """The newest posts of the whole blog."""
    return _feed(kind, None)


@bp.get("/topics/<slug>/feed.<any(atom, rss):kind>")
def topic_feed(slug: str, kind: str) -> Response:
    """The newest posts of one topic."""
    return _feed(kind, slug)
