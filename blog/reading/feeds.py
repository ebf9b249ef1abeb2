"""Atom and RSS feeds of the whole blog, of each topic and of each author, built with feedgen.

Each entry's id is the post's permanent id as a URN (`urn:uuid:...`), which export and
import keep; its content opens with the post's picture (the uploaded image or the generated
illustration, as pages show it), which is also the entry's enclosure.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, cast

from feedgen.ext.base import BaseEntryExtension
from feedgen.feed import FeedGenerator
from feedgen.util import xml_elem
from flask import Blueprint, abort, current_app, redirect, url_for
from flask.wrappers import Response
from lxml import html as lxml_html

from blog import catalog
from blog.media.pictures import Picture, picture, post_drawing
from blog.models import Author, Post, Topic
from blog.reading import listing
from blog.reading.seo import (
    FEED_TYPES,
    absolute_url,
    external_url,
    post_modified,
    post_urls,
    xml_safe,
)
from blog.web import validators

bp = Blueprint("feeds", __name__)

FEED_SIZE = 20
MIMETYPES = FEED_TYPES
# What a feed says it was updated at when it has no entry yet.
EPOCH = datetime(1970, 1, 1)
# The permalink the Markdown pipeline's table of contents puts at the end of each heading
# (`<a class="headerlink">¶</a>`): a feed reader shows it as a stray character.
_HEADING_LINKS = (
    "//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"
    "/a[contains(concat(' ', normalize-space(@class), ' '), ' headerlink ')]"
)


class AtomLinks(BaseEntryExtension):
    """An Atom entry's links with all their attributes. feedgen 1.0 writes only `href` of
    an entry's links (its loop reads the attributes back from the new element), which would
    make the enclosure a second alternate link."""

    def __init__(self) -> None:
        self.links: list[dict[str, str]] = []

    def add(self, **attributes: str) -> None:
        """Add a link; `href` and the others as Atom names them."""
        self.links.append(attributes)

    def extend_atom(self, entry: Any) -> Any:
        """Write the links into the entry element."""
        for attributes in self.links:
            xml_elem("link", entry, **attributes)
        return entry


def _aware(value: datetime) -> datetime:
    """A stored naive UTC time with its zone attached, as feedgen requires."""
    return value.replace(tzinfo=UTC)


def feed_html(fragment: str, base: str) -> str:
    """Post HTML as a feed carries it: heading permalinks taken out, and every link and
    source made absolute against `base` (readers show entries away from the site, where
    relative links would break)."""
    if not fragment.strip():
        return ""
    root = lxml_html.fragment_fromstring(fragment, create_parent="div")
    for link in root.xpath(_HEADING_LINKS):
        link.drop_tree()  # its tail, if any, stays in the heading
    for element in root.xpath("//picture"):
        _unwrapped(element)
    for img in root.iter("img"):
        # Readers show the original: resized copies' srcset would stay relative to the site.
        for name in ("srcset", "sizes"):
            img.attrib.pop(name, None)
    root.make_links_absolute(base, resolve_base_href=False)
    inner = html.escape(root.text or "", quote=False)
    inner += "".join(lxml_html.tostring(child, encoding="unicode") for child in root)
    return inner


def _unwrapped(picture: lxml_html.HtmlElement) -> None:
    """A <picture> replaced by its <img>: its WebP <source> is for the site's own pages."""
    img = picture.find(".//img")
    if img is None:
        picture.drop_tree()
        return
    img.tail = picture.tail
    picture.getparent().replace(picture, img)


def entry_id(post: Post) -> str:
    """A permanent id for a post's entry: its uid, which slug changes, edits, export and
    import all keep (the database id is not: an import into another database changes it)."""
    return f"urn:uuid:{post.uid}"


def picture_bytes(post: Post) -> int:
    """How many bytes the picture's address serves: the stored image's size, or that of
    the post's drawing (deterministic, and cached on the words it is drawn from)."""
    if post.image is not None:
        return post.image.byte_size
    return len(post_drawing(post).svg.encode("utf-8"))


def picture_html(shown: Picture, src: str) -> str:
    """The <img> a feed entry's content opens with."""
    return (
        f'<p><img src="{html.escape(src)}" alt="{html.escape(xml_safe(shown.alt))}"'
        f' width="{shown.width}" height="{shown.height}"></p>\n'
    )


def build_feed(
    posts: Sequence[Post], kind: str, topic: Topic | None = None, author: Author | None = None
) -> bytes:
    """The Atom or RSS document for these posts (of a topic, of an author), newest first."""
    site = current_app.config["SITE_NAME"]
    of = author or topic
    title = f"{of.name} · {site}" if of else site
    if author is not None:
        page_url = external_url("public.author", slug=author.slug)
        self_url = external_url("feeds.author_feed", slug=author.slug, kind=kind)
    elif topic is not None:
        page_url = external_url("public.topic", slug=topic.slug)
        self_url = external_url("feeds.topic_feed", slug=topic.slug, kind=kind)
    else:
        page_url = external_url("public.home")
        self_url = external_url("feeds.blog_feed", kind=kind)

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
        if kind == "atom":
            entry.summary(xml_safe(post.excerpt))  # type="text": readers show it as is
        else:
            # RSS descriptions are read as HTML: escape so the excerpt stays plain text.
            entry.description(html.escape(xml_safe(post.excerpt), quote=False))
        shown = picture(post)
        src = absolute_url(shown.src)
        body = feed_html(post.body_html, url)
        entry.content(xml_safe(picture_html(shown, src) + body), type="html")
        size = picture_bytes(post)
        if kind == "atom":
            entry.register_extension("links", AtomLinks, atom=True, rss=False)
            entry.links.add(href=url, rel="alternate", type="text/html")
            entry.links.add(href=src, rel="enclosure", type=shown.type, length=str(size))
        else:
            entry.link(href=url, rel="alternate", type="text/html")
            entry.enclosure(src, size, shown.type)
        for credited in post.authors:
            entry.author(name=xml_safe(credited.name))
            entry.dc.dc_creator(xml_safe(credited.name))
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


def _feed(kind: str, topic_slug: str | None = None, author_slug: str | None = None) -> Response:
    """Answer a feed request: 304 when unchanged, else the rendered feed."""
    mimetype = MIMETYPES[kind]
    check = validators.validator("feed", kind, topic_slug, author_slug)
    early = validators.not_modified(check, mimetype=mimetype)
    if early is not None:
        return early
    topic, author = None, None
    if topic_slug is not None:
        topic = catalog.topic_by_slug(topic_slug)
        if topic is None:
            current = catalog.current_topic_slug(topic_slug) if topic_slug.isprintable() else None
            if current is not None and catalog.topic_by_slug(current) is not None:
                target = url_for("feeds.topic_feed", slug=current, kind=kind)
                return cast(Response, redirect(target, 301))
            abort(404, description="There is no topic by that name.")
    if author_slug is not None:
        profile = listing.author_by_slug(author_slug)
        if profile is None:
            abort(404, description="There is no author by that name.")
        author = profile.author
    body = build_feed(listing.newest_posts(FEED_SIZE, topic, author), kind, topic, author)
    return validators.cacheable(Response(body, mimetype=mimetype), check)


@bp.get("/feed.<any(atom, rss):kind>")
def blog_feed(kind: str) -> Response:
    """The newest posts of the whole blog."""
    return _feed(kind)


@bp.get("/topics/<slug>/feed.<any(atom, rss):kind>")
def topic_feed(slug: str, kind: str) -> Response:
    """The newest posts of one topic."""
    return _feed(kind, topic_slug=slug)


@bp.get("/authors/<slug>/feed.<any(atom, rss):kind>")
def author_feed(slug: str, kind: str) -> Response:
    """The newest posts of one author."""
    return _feed(kind, author_slug=slug)
