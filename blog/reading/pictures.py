"""Where a post's picture comes from: its uploaded image, or its generated illustration."""

from __future__ import annotations

import re
from dataclasses import dataclass

import sqlalchemy as sa
from flask import Blueprint, abort, current_app, url_for
from flask.wrappers import Response

from blog.authoring.images import image_url
from blog.extensions import db
from blog.models import Post, live
from blog.reading.illustrations import HEIGHT, WIDTH, Illustration, illustration
from blog.reading.listing import Card

bp = Blueprint("art", __name__)

SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,199}")


@dataclass(frozen=True)
class Picture:
    """What an <img> for a post needs."""

    src: str
    alt: str
    width: int
    height: int
    type: str  # the media type, for previews


def drawing_for(slug: str, title: str = "", summary: str = "") -> Illustration:
    """A post's generated drawing, from the words cards show (title and excerpt).

    The hook for a drawing chosen by hand: pass a `drawings.Spec` on to `illustration`.
    """
    return illustration(slug, title, summary, site=current_app.config["SITE_NAME"])


def picture(post: Post | Card) -> Picture:
    """The post's uploaded image with its alt text, or its generated illustration."""
    image = post.image
    if image is not None:
        return Picture(
            src=image_url(image),
            alt=post.image_alt or "",
            width=image.width,
            height=image.height,
            type=image.content_type,
        )
    drawing = drawing_for(post.slug, post.title, post.excerpt)
    return Picture(
        src=url_for("art.illustration_svg", slug=post.slug),
        alt=drawing.alt,
        width=WIDTH,
        height=HEIGHT,
        type="image/svg+xml",
    )


def _served_drawing(slug: str) -> Illustration:
    """The drawing the slug's live post shows, or the slug's own for any other slug."""
    words = db.session.execute(
        sa.select(Post.title, Post.excerpt).where(Post.slug == slug, live())
    ).first()
    return drawing_for(slug, *words) if words is not None else drawing_for(slug)


@bp.get("/illustrations/<slug>.svg")
def illustration_svg(slug: str) -> Response:
    """The drawing of the slug's live post (or of the slug alone): cached for a day."""
    if not SLUG.fullmatch(slug):
        abort(404)
    response = Response(_served_drawing(slug).svg, mimetype="image/svg+xml")
    response.cache_control.public = True
    response.cache_control.max_age = 86400
    return response
