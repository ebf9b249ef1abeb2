"""Where a post's picture comes from: its uploaded image, or its generated illustration."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol

import sqlalchemy as sa
from flask import Blueprint, abort, current_app, request, url_for
from flask.wrappers import Response

from blog.extensions import db
from blog.media import drawing_spec, renditions
from blog.media.drawings import KINDS
from blog.media.illustrations import HEIGHT, WIDTH, Illustration, candidates, illustration
from blog.media.images import image_url
from blog.models import Post, live
from blog.web.headers import public_cache_control
from blog.web.static import STATIC_MAX_AGE

bp = Blueprint("pictures", __name__)

SLUG = re.compile(r"[a-z0-9][a-z0-9-]{0,199}")


class Pictured(Protocol):
    """What a post's picture is made from: a stored Post, or a listing card."""

    @property
    def slug(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def excerpt(self) -> str: ...

    @property
    def illustration(self) -> str: ...

    @property
    def image(self) -> renditions.SizedImage | None: ...

    @property
    def image_alt(self) -> str | None: ...


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


# What a drawing may do when opened on its own: apply its own stylesheet, and nothing else.
DRAWING_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; object-src 'none'; frame-ancestors 'none'; "
    "base-uri 'none'"
)


def drawing_for(slug: str, title: str = "", summary: str = "", written: str = "") -> Illustration:
    """A post's generated drawing, from the words cards show (title and excerpt), or from its
    `illustration:` spec (`written`) where it has one: what the spec names, the words the rest.
    """
    spec = drawing_spec.applied(written, slug, title, summary) if written else None
    return illustration(slug, title, summary, site=current_app.config["SITE_NAME"], spec=spec)


@dataclass(frozen=True)
class Choice:
    """A composition an editor may switch to: the spec that names it, and what it draws."""

    spec: str
    what: str


@bp.app_template_global()
def drawing_choices(slug: str, title: str, summary: str, shown: str = "") -> list[Choice]:
    """The compositions that suit the words typed, best first, but the kind shown."""
    slug = slug or "new-post"
    kinds = [k for k in candidates(slug, title, summary, most=5) if k != shown]
    return [Choice(f"kind: {k}", KINDS[k][3]) for k in kinds[:4]]


def illustration_url(slug: str, drawing: Illustration) -> str:
    """The one address of a drawing: it names the SVG's hash, so it can be kept for good."""
    return url_for("pictures.illustration_svg", slug=slug, v=drawing.version)


def post_drawing(post: Pictured) -> Illustration:
    """The drawing a post shows when it has no uploaded image."""
    return drawing_for(post.slug, post.title, post.excerpt, post.illustration)


def picture(post: Pictured) -> Picture:
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


def unpublished_drawing(slug: str, version: str) -> Illustration | None:
    """The drawing the post with this slug, not live yet, will show once it is, when it is
    the one `version` names (its SVG's hash: only a page that showed it knows it)."""
    words = db.session.execute(
        sa.select(Post.title, Post.excerpt, Post.illustration).where(
            Post.slug == slug, sa.not_(live())
        )
    ).first()
    if words is None:
        return None
    drawing = drawing_for(slug, *words)
    return drawing if drawing.version == version else None


def _kept_by_no_one(response: Response) -> Response:
    """No cache keeps it: what it answers changes when a post is published."""
    response.cache_control.no_store = True
    response.cache_control.private = True
    return response


def versioned(
    body: bytes | str, mimetype: str, version: str, current_url: str, *, settled: bool = True
) -> Response:
    """A body named by `version`: immutable for a year at its current `?v=`, sent on to
    `current_url` from an old `v`, and kept briefly with revalidation when no `v` is given.

    `settled` false (a post not live yet) keeps the redirect out of every cache: once the
    post is published, its `v` names its own drawing, and a kept redirect would hide it.
    """
    asked = request.args.get("v")
    if asked is not None and asked != version:
        moved = Response(status=302, headers={"Location": current_url})
        if settled:
            public_cache_control(moved)
        else:
            _kept_by_no_one(moved)
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
    on to the current address, and no `v` gets the short revalidated cache of pages. A post
    not live yet shows, at the `v` its preview names, the drawing it will have, uncached."""
    if not SLUG.fullmatch(slug):
        abort(404)
    drawing, is_live = served_drawing(slug)
    asked = request.args.get("v")
    ahead = None
    if not is_live and asked is not None and asked != drawing.version:
        # A preview of a post not live yet names the drawing readers will get: the same one,
        # from the same words, kept by no cache (it changes as the post is edited).
        ahead = unpublished_drawing(slug, asked)
    if ahead is not None:
        response = _kept_by_no_one(Response(ahead.svg, mimetype="image/svg+xml"))
    else:
        response = versioned(
            drawing.svg,
            "image/svg+xml",
            drawing.version,
            illustration_url(slug, drawing),
            settled=is_live,
        )
    # Its own stylesheet colours it for light and dark themes; nothing else may load or run.
    response.headers["Content-Security-Policy"] = DRAWING_POLICY
    return response
