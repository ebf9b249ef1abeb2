"""Link previews in PNG: each drawing at 1200×630 and the site's logo, rendered once and kept.

Most link unfurlers show no SVG, so og:image, twitter:image and the JSON-LD image name a PNG
of the drawing. CairoSVG (on Debian's libcairo2) renders one in about 40 ms; the file is then
kept under the instance folder, one per post (a new drawing replaces the post's old file), so
every worker of every process serves the same bytes and none renders a drawing twice.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from flask import Blueprint, abort, current_app, url_for
from flask.wrappers import Response

from blog.media.drawings import PAPER
from blog.media.illustrations import Illustration
from blog.media.pictures import (
    SLUG,
    Picture,
    Pictured,
    picture,
    post_drawing,
    served_drawing,
    versioned,
)
from blog.web.static import static_digest

bp = Blueprint("previews", __name__)
log = logging.getLogger(__name__)

# The size link unfurlers show large: the drawing is scaled to its height, paper either side.
PREVIEW_WIDTH, PREVIEW_HEIGHT = 1200, 630
LOGO_FILE = "favicon.svg"
LOGO_SIZE = 512
# Beside the posts' folders, under a name no slug can take (a post "logo" would otherwise
# share it, each render removing the other's file).
LOGO_FOLDER = "_logo"


def _folder() -> Path:
    """Where rendered previews are kept (instance/previews/)."""
    return Path(current_app.instance_path) / "previews"


def _kept(path: Path, render: Callable[[], bytes]) -> bytes:
    """The file's bytes, rendered and written first when missing (atomically, so workers
    rendering at once each leave a whole file); its siblings, older renders, are removed."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = render()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temporary, path)
        for old in path.parent.glob("*.png"):
            if old.name != path.name:
                old.unlink(missing_ok=True)
    except OSError as error:  # a read-only disk still gets its previews, rendered each time
        log.warning("cannot keep the preview %s: %s", path, error)
    return data


def render_png(svg: str, width: int, height: int) -> bytes:
    """An SVG as a PNG of exactly width × height, on the drawings' paper colour."""
    import cairosvg  # loaded on the first preview drawn, not in every process's start-up

    png: bytes = cairosvg.svg2png(
        bytestring=svg.encode("utf-8"),
        output_width=width,
        output_height=height,
        background_color=PAPER,
    )
    return png


def drawing_png(slug: str, drawing: Illustration) -> bytes:
    """The PNG preview of a post's drawing, kept under instance/previews/<slug>/."""
    path = _folder() / slug / f"{drawing.version}.png"
    return _kept(path, lambda: render_png(drawing.svg, PREVIEW_WIDTH, PREVIEW_HEIGHT))


def drawing_png_url(slug: str, drawing: Illustration) -> str:
    """The preview's address, named by its drawing's hash like the SVG's."""
    return url_for("previews.illustration_png", slug=slug, v=drawing.version)


def link_picture(post: Pictured) -> Picture:
    """The picture link previews show: the uploaded image as it is, else the drawing's PNG."""
    shown = picture(post)
    if post.image is not None:
        return shown
    url = drawing_png_url(post.slug, post_drawing(post))
    return Picture(url, shown.alt, PREVIEW_WIDTH, PREVIEW_HEIGHT, "image/png")


def logo_url() -> str | None:
    """The address of the logo's PNG, named by the hash of the SVG it is made from."""
    digest = static_digest(LOGO_FILE)
    return url_for("previews.logo_png", v=digest) if digest else None


@bp.get("/illustrations/<slug>.png")
def illustration_png(slug: str) -> Response:
    """A live post's drawing as a PNG link preview, cached like the SVG. Other slugs get a
    404, so no one can fill the disk with previews of posts that do not exist."""
    if not SLUG.fullmatch(slug):
        abort(404)
    drawing, is_live = served_drawing(slug)
    if not is_live:
        abort(404)
    return versioned(
        drawing_png(slug, drawing), "image/png", drawing.version, drawing_png_url(slug, drawing)
    )


@bp.get("/logo.png")
def logo_png() -> Response:
    """The site's logo (static/favicon.svg) as a square PNG, for structured data."""
    digest = static_digest(LOGO_FILE)
    folder = current_app.static_folder
    if digest is None or folder is None:
        abort(404)
    svg = (Path(folder) / LOGO_FILE).read_text("utf-8")
    body = _kept(
        _folder() / LOGO_FOLDER / f"{digest}.png", lambda: render_png(svg, LOGO_SIZE, LOGO_SIZE)
    )
    return versioned(body, "image/png", digest, url_for("previews.logo_png", v=digest))
