"""Uploaded illustrations: checked and cleaned by Pillow, kept in the database, served by hash."""

from __future__ import annotations

import hashlib
import io
import re
import warnings

import PIL.Image
import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Blueprint, abort, current_app, request, url_for
from flask.wrappers import Response
from PIL import ImageOps

from blog.extensions import db
from blog.models import Image

bp = Blueprint("images", __name__)

# Pillow format name -> (content type, file extension). Nothing else is accepted.
FORMATS = {
    "PNG": ("image/png", "png"),
    "JPEG": ("image/jpeg", "jpg"),
    "WEBP": ("image/webp", "webp"),
    "GIF": ("image/gif", "gif"),
}
EXTENSIONS = {ext: content_type for content_type, ext in FORMATS.values()}
# Decoding cost guards: a small file can still claim a huge canvas or thousands of frames.
MAX_PIXELS = 40_000_000
MAX_FRAMES = 500
# Every frame of an animation is decoded and re-encoded on the whole canvas: a tiny GIF with
# a huge canvas and many one-pixel frames would otherwise cost minutes of CPU.
MAX_TOTAL_PIXELS = 100_000_000
ONE_YEAR = 365 * 24 * 3600
NAME = re.compile(r"([0-9a-f]{64})\.([a-z]{3,4})")
HASH = re.compile(r"[0-9a-f]{64}")


class ImageError(ValueError):
    """An upload that is not an image this site accepts; `status` is 400 or 413."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def _megabytes(size: int) -> str:
    """A byte count as editors read it, like `5 MB` or `6.2 MB`."""
    return f"{size / (1024 * 1024):.1f}".removesuffix(".0") + " MB"


def _reencoded(picture: PIL.Image.Image, kind: str) -> tuple[bytes, int, int]:
    """The picture saved again with only its pixels (and colour profile): no EXIF, XMP or text.

    Returns the bytes with the final width and height (a JPEG's EXIF rotation is applied).
    """
    out = io.BytesIO()
    options: dict[str, object] = {"exif": b"", "icc_profile": picture.info.get("icc_profile")}
    animated = getattr(picture, "n_frames", 1) > 1
    if kind == "JPEG":
        orientation = picture.getexif().get(0x0112, 1)
        if orientation == 1:
            # Same quantization tables as the upload: no visible loss from re-saving.
            options |= {"quality": "keep", "subsampling": "keep"}
        else:
            picture = ImageOps.exif_transpose(picture)
            options |= {"quality": 90}
        picture.save(out, "JPEG", comment=b"", optimize=True, **options)
    elif kind == "PNG":
        picture.save(out, "PNG", save_all=animated, **options)
    elif kind == "WEBP":
        lossless = picture.info.get("lossless", False)
        options |= {"lossless": lossless, "quality": 100 if lossless else 90, "xmp": b""}
        picture.save(out, "WEBP", save_all=animated, **options)
    else:
        options.pop("icc_profile")
        options.pop("exif")
        picture.save(out, "GIF", save_all=animated, comment=b"")
    return out.getvalue(), picture.width, picture.height


def _clean(data: bytes) -> tuple[bytes, str, int, int]:
    """Decode the upload fully and re-encode it; (bytes, format, width, height)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", PIL.Image.DecompressionBombWarning)
            with PIL.Image.open(io.BytesIO(data), formats=list(FORMATS)) as probe:
                kind = probe.format or ""
                probe.verify()
            with PIL.Image.open(io.BytesIO(data), formats=[kind]) as picture:
                width, height = picture.size
                frames = getattr(picture, "n_frames", 1)
                pixels = width * height
                if pixels > MAX_PIXELS or frames > MAX_FRAMES or pixels * frames > MAX_TOTAL_PIXELS:
                    raise ImageError(
                        f"The image is {width}×{height} pixels"
                        + (f" over {frames} frames" if frames > 1 else "")
                        + f"; the limits are {MAX_PIXELS // 1_000_000} megapixels a frame,"
                        f" {MAX_FRAMES} frames and {MAX_TOTAL_PIXELS // 1_000_000} megapixels"
                        " over all frames.",
                        413,
                    )
                picture.load()
                cleaned, width, height = _reencoded(picture, kind)
                return cleaned, kind, width, height
    except ImageError:
        raise
    except (PIL.Image.DecompressionBombError, PIL.Image.DecompressionBombWarning) as error:
        raise ImageError(
            f"The image has too many pixels; the limit is {MAX_PIXELS // 1_000_000} megapixels.",
            413,
        ) from error
    except (
        PIL.UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        EOFError,
        IndexError,
        KeyError,
        TypeError,
    ) as error:
        raise ImageError(
            "That file is not a PNG, JPEG, WebP or GIF image (or it is damaged)."
        ) from error


def store_image(data: bytes) -> Image:
    """Check, clean and add an uploaded image to the session (not committed); same bytes, same row.

    Raises ImageError for anything that is not a real PNG, JPEG, WebP or GIF within the limit.
    """
    limit = current_app.config["MAX_IMAGE_BYTES"]
    if not data:
        raise ImageError("The file is empty.")
    if len(data) > limit:
        raise ImageError(
            f"The image is {_megabytes(len(data))}; the limit is {_megabytes(limit)}.", 413
        )
    cleaned, kind, width, height = _clean(data)
    digest = hashlib.sha256(cleaned).hexdigest()
    existing = db.session.scalar(sa.select(Image).where(Image.sha256 == digest))
    if existing is not None:
        return existing
    image = Image(
        sha256=digest,
        content_type=FORMATS[kind][0],
        data=cleaned,
        width=width,
        height=height,
        byte_size=len(cleaned),
    )
    db.session.add(image)
    return image


def image_by_hash(digest: str) -> Image | None:
    """The stored image with this content hash, or None (also for text that is no hash)."""
    if not HASH.fullmatch(digest):
        return None
    return db.session.scalar(sa.select(Image).where(Image.sha256 == digest))


def image_url(image: Image) -> str:
    """The image's permanent address: its content hash, so it can be cached forever."""
    extension = next(ext for ext, kind in EXTENSIONS.items() if kind == image.content_type)
    return url_for("images.serve", name=f"{image.sha256}.{extension}")


@bp.get("/images/<name>")
def serve(name: str) -> Response:
    """An uploaded image's bytes, cacheable for a year: its address changes with its content."""
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
    response = Response(image.data, mimetype=image.content_type)
    response.set_etag(digest)
    response.cache_control.public = True
    response.cache_control.max_age = ONE_YEAR
    response.cache_control.immutable = True
    return response.make_conditional(request)
