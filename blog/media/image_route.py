"""The image route: an uploaded image's bytes, and its resized copies, by content hash."""

from __future__ import annotations

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Blueprint, abort, redirect, request, url_for
from flask.wrappers import Response
from werkzeug.wrappers import Response as BaseResponse

from blog.extensions import db
from blog.media import renditions
from blog.media.images import COPY_NAME, EXTENSIONS, NAME, ONE_YEAR
from blog.models import Image

bp = Blueprint("images", __name__)
# How long a browser may keep "this copy could not be made, see the original" (seconds).
ONE_DAY = 24 * 3600


def _immutable(data: bytes, content_type: str, etag: str) -> BaseResponse:
    """Bytes whose address changes with them: cached for a year, a strong ETag for 304s."""
    response = Response(data, mimetype=content_type)
    response.set_etag(etag)
    response.cache_control.public = True
    response.cache_control.max_age = ONE_YEAR
    response.cache_control.immutable = True
    return response.make_conditional(request)


def _serve_copy(digest: str, width: str, extension: str) -> BaseResponse:
    """A resized copy of a stored image (made on the first ask), the way to the original
    when there is none to send, or 404."""
    if width not in {str(size) for size in renditions.WIDTHS} or extension not in EXTENSIONS:
        abort(404)
    copy = renditions.stored_copy(digest, int(width), EXTENSIONS[extension])
    if copy is None:
        abort(404, description="There is no image at this address.")
    if isinstance(copy, renditions.Original):
        return _to_original(copy)
    return _immutable(copy.data, copy.content_type, copy.sha256)


def _to_original(original: renditions.Original) -> BaseResponse:
    """Send the reader to the original: for a day when the copy could not be made, and
    uncached while another request is making it."""
    response = redirect(url_for("images.serve", name=original.name), 307)
    if original.lasting:
        response.cache_control.public = True
        response.cache_control.max_age = ONE_DAY
    else:
        response.cache_control.no_store = True
    return response


@bp.get("/images/<name>")
def serve(name: str) -> BaseResponse:
    """An uploaded image's bytes, cacheable for a year: its address changes with its content.

    `<hash>-<width>.<ext>` names a resized copy of it (see blog/media/renditions.py).
    """
    resized = COPY_NAME.fullmatch(name)
    if resized is not None:
        return _serve_copy(*resized.groups())
    match = NAME.fullmatch(name)
    if match is None or match.group(2) not in EXTENSIONS:
        abort(404)
    digest, extension = match.groups()
    query = (
        sa.select(Image)
        .options(so.undefer(Image.data))
        .where(Image.sha256 == digest, Image.content_type == EXTENSIONS[extension])
    )
    image = db.session.scalar(query)
    if image is None:
        abort(404, description="There is no image at this address.")
    return _immutable(image.data, image.content_type, digest)
