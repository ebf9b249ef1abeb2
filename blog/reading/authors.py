"""What readers see of an author besides their posts: their avatar, their own link, and
the head metadata of their page (its feeds and a ProfilePage in JSON-LD)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import Flask, current_app

from blog.markup.policy import web_link
from blog.media import renditions
from blog.media.images import image_url
from blog.models import Author
from blog.reading import listing, seo
from blog.web.templating import card_summary

# The avatar's box in CSS pixels: the image is cropped to it (site.css), so any upload fits.
AVATAR_SIZE = 96
# The widest own link shown in full; longer ones are shortened on screen, never in the href.
LINK_LABEL_LENGTH = 60


@dataclass(frozen=True)
class Avatar:
    """What an author's <img> needs."""

    src: str
    srcset: str
    alt: str
    size: int


def avatar(author: Author) -> Avatar | None:
    """The author's uploaded avatar, named in its alt text, or None."""
    image = author.avatar
    if image is None:
        return None
    src = image_url(image)
    copies = renditions.sources(image, src)
    return Avatar(src, copies.srcset if copies else "", f"Avatar of {author.name}", AVATAR_SIZE)


def own_link(author: Author) -> str | None:
    """The author's own link when it is an absolute http(s) address, else None (never shown)."""
    return web_link(author.url)


def link_label(url: str) -> str:
    """The own link as it is shown: without its scheme or trailing slash, and shortened."""
    label = url.split("://", 1)[-1].rstrip("/")
    if len(label) > LINK_LABEL_LENGTH:
        label = label[: LINK_LABEL_LENGTH - 1] + "…"
    return label


def feed_links(author: Author) -> tuple[seo.FeedLink, ...]:
    """The blog's feeds, then the author's."""
    title = f"{author.name} · {current_app.config['SITE_NAME']}"
    atom = seo.external_url("feeds.author_feed", slug=author.slug, kind="atom")
    rss = seo.external_url("feeds.author_feed", slug=author.slug, kind="rss")
    return (
        *seo.feed_links(),
        seo.FeedLink(title, atom, seo.FEED_TYPES["atom"]),
        seo.FeedLink(f"{title} (RSS)", rss, seo.FEED_TYPES["rss"]),
    )


def person(author: Author) -> dict[str, Any]:
    """The author as a schema.org Person: name, page, bio, avatar and own link."""
    data = seo.person(author.name, author.slug)
    if author.bio:
        data["description"] = author.bio
    shown = avatar(author)
    if shown is not None:
        data["image"] = seo.absolute_url(shown.src)
    link = own_link(author)
    if link is not None:
        data["sameAs"] = [link]
    return data


def author_meta(author: Author, shown: listing.Listing) -> seo.PageMeta:
    """Metadata for an author page: a ProfilePage about them, with their newest posts."""
    page, featured = shown.page, shown.featured
    args: dict[str, Any] = {"page": page.number} if page.number > 1 else {}
    canonical = seo.external_url("public.author", slug=author.slug, **args)
    title = listing.listing_title(author, page.number)
    site = current_app.config["SITE_NAME"]
    description = card_summary(author.bio) if author.bio else f"Posts by {author.name} on {site}."
    data = {
        "@context": seo.SCHEMA_CONTEXT,
        "@type": "ProfilePage",
        "name": title,
        "url": canonical,
        "mainEntity": person(author),
        "hasPart": seo.postings(page.posts),
    }
    pictured = featured or (page.posts[0] if page.posts else None)
    return seo.PageMeta(
        title=title,
        description=description,
        canonical=canonical,
        og_type="profile",
        image=seo.post_image(pictured) if pictured is not None else None,
        json_ld=seo.json_ld(data),
        feeds=feed_links(author),
    )


def init_app(app: Flask) -> None:
    """Give templates the author's avatar and own link."""
    app.jinja_env.globals["author_avatar"] = avatar
    app.jinja_env.globals["author_link"] = own_link
    app.jinja_env.filters["link_label"] = link_label
