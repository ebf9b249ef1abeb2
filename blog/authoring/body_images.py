"""Images in a post's body: the editor's upload, and fetching a copy of another site's image.

Both answer JSON for static/js/body-images.js: 201 with the stored image's address (and,
for an upload, the Markdown to insert), or a 4xx with `error`, the message to show.
"""

from __future__ import annotations

import re

from flask import Blueprint, Flask, current_app, jsonify, request
from flask.wrappers import Response
from flask_login import current_user
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import RequestEntityTooLarge

from blog.authoring import fetching
from blog.authoring.forms import IMAGE_ALT_MAX
from blog.authoring.store import clean_text
from blog.database import begin_write
from blog.extensions import db
from blog.markup.images import external_sources
from blog.media.images import (
    ImageError,
    commit_image,
    image_url,
    megabytes,
    too_large,
    upload_bytes,
)

bp = Blueprint("body_images", __name__, url_prefix="/editor/images")

# Characters that would end or change an image's alt text in Markdown.
ALT_SPECIAL = re.compile(r"([\\\[\]`])")
# The most blocked images the preview lists.
MAX_BLOCKED = 20


def _answer(status: int, **values: str) -> Response:
    """A JSON answer that no cache keeps."""
    response = jsonify(values)
    response.status_code = status
    response.cache_control.no_store = True
    return response


def _refused(status: int, message: str) -> Response:
    """A refusal the editor's script shows as it is."""
    return _answer(status, error=message)


@bp.before_request
def _require_login() -> Response | None:
    """For logged-in editors only: others get a 401 the script can explain."""
    if not current_user.is_authenticated:
        return _refused(401, "You are logged out: log in again in another tab, then retry.")
    return None


@bp.errorhandler(CSRFError)
def _csrf_refused(error: CSRFError) -> Response:
    """A missing or stale CSRF token."""
    return _refused(
        400, "This page's security token is no longer valid: save your text, then reload."
    )


@bp.errorhandler(RequestEntityTooLarge)
def _too_large(error: RequestEntityTooLarge) -> Response:
    """A request over the size limit, refused before it is read: the size it announced is
    the image's, give or take its form fields."""
    limit = current_app.config["MAX_IMAGE_BYTES"]
    size = request.content_length
    if size is None:
        return _refused(413, f"This image is larger than the limit of {megabytes(limit)}.")
    return _refused(413, too_large(max(size, limit + 1), limit))


def markdown_image(alt: str, src: str) -> str:
    """The Markdown that shows the image at `src` with this alt text."""
    escaped = ALT_SPECIAL.sub(r"\\\1", alt)
    return f"![{escaped}]({src})"


def _stored(data: bytes) -> Response | str:
    """Store an upload and give its address, or the refusal (415 when it is no image)."""
    try:
        image = commit_image(data)
    except ImageError as error:
        db.session.rollback()
        return _refused(415 if error.status == 400 else error.status, error.message)
    return image_url(image)


@bp.post("")
def upload() -> Response:
    """Store an image for the body; 201 with the Markdown to insert at the cursor.

    The alt text is required (422 without it, or over its limit); over MAX_IMAGE_BYTES 413;
    a file that is no PNG, JPEG, WebP or GIF 415.
    """
    alt = " ".join(clean_text(request.form.get("alt", "")).split())
    if not alt:
        return _refused(
            422, "Describe the image for readers who cannot see it: alt text is required."
        )
    if len(alt) > IMAGE_ALT_MAX:
        return _refused(
            422, f"The alt text is {len(alt):,} characters long; the limit is {IMAGE_ALT_MAX}."
        )
    upload = request.files.get("image")
    if upload is None or not upload.filename:
        return _refused(422, "Choose an image file to upload.")
    try:
        data = upload_bytes(upload.stream)
    except ImageError as error:
        return _refused(error.status, error.message)
    stored = _stored(data)
    if isinstance(stored, Response):
        return stored
    return _answer(201, src=stored, markdown=markdown_image(alt, stored))


@bp.post("/fetch")
def fetch() -> Response:
    """Fetch another site's image (`url`) and store it; 201 with its address here.

    4xx for an address that may not or cannot be fetched (see blog/authoring/fetching.py),
    413 over MAX_IMAGE_BYTES, 415 for anything that is not an image.
    """
    url = request.form.get("url", "").strip()
    if not url:
        return _refused(422, "Give the address of the image to fetch.")
    limit = current_app.config["MAX_IMAGE_BYTES"]
    try:
        data = fetching.fetch(
            url, limit, loopback=bool(current_app.config.get("IMAGE_FETCH_LOOPBACK"))
        )
    except fetching.FetchRefused as refused:
        return _refused(refused.status, refused.message)
    # This request held no write lock while it waited on the other site (database.py).
    db.session.rollback()
    begin_write()
    stored = _stored(data)
    if isinstance(stored, Response):
        return stored
    return _answer(201, src=stored, url=url)


def blocked_images(html: str) -> list[str]:
    """The addresses of other sites' images a rendered body shows (the preview lists
    them: the Content-Security-Policy blocks them)."""
    return external_sources(html)[:MAX_BLOCKED]


def init_app(app: Flask) -> None:
    """Register the routes and the preview's filter."""
    app.register_blueprint(bp)
    app.add_template_filter(blocked_images)
