"""Where a post's picture comes from: its uploaded image, or its generated illustration."""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa
from flask import Blueprint, abort, current_app, request, url_for
from flask.wrappers import Response

from blog.authoring import renditions
from blog.authoring.images import image_url
from blog.extensions import db
from blog.models import Post, live
from blog.reading import drawing_spec
from blog.reading.illustrations import HEIGHT, WIDTH, Illustration, illustration
from blog.reading.listing import Card
from blog.web.headers import public_cache_control
from blog.web.static import STATIC_MAX_AGE

bp = Blueprint("pictures", __name__)

SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,199}")


@dataclass(frozen=True)
class Picture:
    """What an <img> for a post needs."""

    src: str
    alt: str
    width: int
    height: int
    type: str  # the media type, for previews
    srcset: str = ""  # resized copies in the image's own format, with their widths
    webp_srcset: str = ""  # the same widths in WebP, for a <source> ahead of the <img>


def drawing_for(slug: str, title: str = "", summary: str = "", written: str = "") -> Illustration:
    """A post's generated drawing, from the words cards show (title and excerpt), or from its
    `illustration:` spec (`written`) where it has one: what the spec names, the words the rest.
    """
    spec = drawing_spec.applied(written, slug, title, summary) if written else None
    return illustration(slug, title, summary, site=current_app.config["SITE_NAME"], spec=spec)


def illustration_url(slug: str, drawing: Illustration) -> str:
    """The one address of a drawing: it names the SVG's hash, so it can be kept for good."""
    return url_for("pictures.illustration_svg", slug=slug, v=drawing.version)


def post_drawing(post: Post | Card) -> Illustration:
    """The drawing a post shows when it has no uploaded image."""
    return drawing_for(post.slug, post.title, post.excerpt, post.illustration)


def picture(post: Post | Card) -> Picture:
    """The post's uploaded image with its alt text, or its generated illustration."""
    image = post.image
    if image is not None:
        src = image_url(image)
        copies = renditions.sources(image, src)
        return Picture(
            src=src,
            alt=post.image_alt or "",
            width=image.width,
            height=image.height,
            type=image.content_type,
            srcset=copies.srcset if copies else "",
            webp_srcset=copies.webp_srcset if copies else "",
        )
    drawing = post_drawing(post)
    return Picture(
        src=illustration_url(post.slug, drawing),
        alt=drawing.alt,
        width=WIDTH,
        height=HEIGHT,
        type="image/svg+xml",
    )


def served_drawing(slug: str) -> tuple[Illustration, bool]:
    """The drawing the slug's live post shows, or the slug's own for any other slug; and
    whether a live post has that slug."""
    words = db.session.execute(
        sa.select(Post.title, Post.excerpt, Post.illustration).where(Post.slug == slug, live())
    ).first()
    if words is None:
        return drawing_for(slug), False
    return drawing_for(slug, *words), True


def versioned(body: bytes | str, mimetype: str, version: str, current_url: str) -> Response:
    """A body named by `version`: immutable for a year at its current `?v=`, sent on to
    `current_url` from an old `v`, and kept briefly with revalidation when no `v` is given."""
    asked = request.args.get("v")
    if asked is not None and asked != version:
        moved = Response(status=302, headers={"Location": current_url})
        public_cache_control(moved)
        return moved
    response = Response(body, mimetype=mimetype)
    response.set_etag(version)  # strong: one body, compressed variants get a suffix
    if asked is None:
        public_cache_control(response)
    else:
        response.cache_control.public = True
        response.cache_control.max_age = STATIC_MAX_AGE
        response.cache_control.immutable = True
    # Compression suffixes the ETag ("<hash>:br"), and either form names this body.
    held = {tag.partition(":")[0] for tag in request.if_none_match.as_set(include_weak=True)}
    if version in held or request.if_none_match.star_tag:
        response.status_code = 304
        response.set_data(b"")
        response.headers.pop("Content-Type", None)
    return response


@bp.get("/illustrations/<slug>.svg")
def illustration_svg(slug: str) -> Response:
    """A post's drawing. At its current `?v=` it is immutable for a year; an old `v` is sent
    on to the current address, and no `v` gets the short revalidated cache of pages."""
    if not SLUG.fullmatch(slug):
        abort(404)
    drawing, _ = served_drawing(slug)
    return versioned(drawing.svg, "image/svg+xml", drawing.version, illustration_url(slug, drawing))
