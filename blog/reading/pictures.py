"""Where a post's picture comes from: its uploaded image, or its generated illustration."""

from __future__ import annotations

import re
from dataclasses import dataclass

from flask import Blueprint, abort, url_for
from flask.wrappers import Response

from blog.authoring.images import image_url
from blog.models import Post
from blog.reading.illustrations import HEIGHT, WIDTH, illustration
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
    drawing = illustration(post.slug)
    return Picture(
        src=url_for("art.illustration_svg", slug=post.slug),
        alt=post.image_alt or drawing.alt,
        width=WIDTH,
        height=HEIGHT,
        type="image/svg+xml",
    )


@bp.get("/illustrations/<slug>.svg")
def illustration_svg(slug: str) -> Response:
    """The generated drawing for a slug; it depends on nothing else, so it caches well."""
    if not SLUG.fullmatch(slug):
        abort(404)
    response = Response(illustration(slug).svg, mimetype="image/svg+xml")
    response.cache_control.public = True
    response.cache_control.max_age = 86400
    return response
