"""Uploaded illustrations: checked and cleaned by Pillow, kept in the database, served by hash."""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from typing import Protocol

import PIL.Image
import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Blueprint, abort, current_app, request, url_for
from flask.wrappers import Response
from PIL import ImageOps
from werkzeug.wrappers import Response as BaseResponse

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
# JPEG markers kept as they are: the frame types browsers decode (baseline, extended sequential
# and progressive Huffman), the tables and the scans. Any other marker means re-encoding.
JPEG_FRAMES = {0xC0, 0xC1, 0xC2}
JPEG_TABLES = {0xC4, 0xDB, 0xDD}  # DHT, DQT, DRI
JPEG_SOS, JPEG_EOI = 0xDA, 0xD9
# The application segments kept, by the signature their payload must start with.
JPEG_APPS = {0xE0: b"JFIF\0", 0xE2: b"ICC_PROFILE\0", 0xEE: b"Adobe"}
# Entropy-coded data after a scan header runs to the next marker: inside it, 0xFF is only
# followed by a stuffed 0x00 or by a restart marker (0xD0 to 0xD7).
JPEG_NEXT_MARKER = re.compile(rb"\xff(?![\x00\xd0-\xd7])")
# WebP chunks kept as they are: pixels, alpha, animation and the colour profile (kept when
# re-encoding too). Inside an animation frame only the pixel chunks may appear.
WEBP_CHUNKS = {b"VP8 ", b"VP8L", b"VP8X", b"ALPH", b"ANIM", b"ANMF", b"ICCP"}
WEBP_FRAME_CHUNKS = {b"VP8 ", b"VP8L", b"ALPH"}
WEBP_EXIF_OR_XMP = 0x08 | 0x04  # VP8X flag bits announcing EXIF and XMP chunks
ONE_YEAR = 365 * 24 * 3600
NAME = re.compile(r"([0-9a-f]{64})\.([a-z]{3,4})")
COPY_NAME = re.compile(r"([0-9a-f]{64})-([0-9]{3,4})\.([a-z]{3,4})")
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
    lossless = picture.info.get("lossless", False)
    # The EXIF that says which way is up is dropped with the rest: turn the pixels first.
    turned = not animated and picture.getexif().get(0x0112, 1) != 1
    if turned:
        picture = ImageOps.exif_transpose(picture)
    if kind == "JPEG":
        if not turned:
            # Same quantization tables as the upload: no visible loss from re-saving.
            options |= {"quality": "keep", "subsampling": "keep"}
        else:
            options |= {"quality": 90}
        picture.save(out, "JPEG", comment=b"", optimize=True, **options)
    elif kind == "PNG":
        picture.save(out, "PNG", save_all=animated, **options)
    elif kind == "WEBP":
        options |= {"lossless": lossless, "quality": 100 if lossless else 90, "xmp": b""}
        picture.save(out, "WEBP", save_all=animated, **options)
    else:
        options.pop("icc_profile")
        options.pop("exif")
        picture.save(out, "GIF", save_all=animated, comment=b"")
    return out.getvalue(), picture.width, picture.height


def _jpeg_is_clean(data: bytes) -> bool:
    """Whether a JPEG holds only what decoding needs, up to its final EOI marker.

    A camera's EXIF, XMP, comments, JFIF thumbnails or bytes after the end all mean no.
    """
    if data[:2] != b"\xff\xd8":
        return False
    at = 2
    while True:
        if at + 2 > len(data) or data[at] != 0xFF:
            return False
        marker = data[at + 1]
        if marker == JPEG_EOI:
            return at + 2 == len(data)
        length = int.from_bytes(data[at + 2 : at + 4], "big")
        end = at + 2 + length
        if length < 2 or end > len(data):
            return False
        payload = data[at + 4 : end]
        if marker in JPEG_APPS:
            if not payload.startswith(JPEG_APPS[marker]):
                return False
            # JFIF and Adobe segments have a fixed size: a longer JFIF one carries a thumbnail.
            if marker == 0xE0 and (len(payload) != 14 or payload[12:14] != b"\0\0"):
                return False
            if marker == 0xEE and len(payload) != 12:
                return False
        elif marker not in JPEG_FRAMES | JPEG_TABLES | {JPEG_SOS}:
            return False
        at = end
        if marker == JPEG_SOS:
            found = JPEG_NEXT_MARKER.search(data, at)
            if found is None:
                return False
            at = found.start()


def _riff_chunks(data: bytes, at: int) -> list[tuple[bytes, bytes]] | None:
    """The (fourcc, payload) chunks from `at` to the very end of `data`; None if they don't fit."""
    chunks = []
    while at < len(data):
        size = int.from_bytes(data[at + 4 : at + 8], "little")
        end = at + 8 + size
        padded = end + size % 2
        if at + 8 > len(data) or padded > len(data) or data[end:padded] not in (b"", b"\0"):
            return None
        chunks.append((data[at : at + 4], data[at + 8 : end]))
        at = padded
    return chunks


def _webp_is_clean(data: bytes) -> bool:
    """Whether a WebP holds only pixels, alpha, animation and a colour profile, and no trailer.

    EXIF and XMP chunks, or any chunk this list does not know, mean no.
    """
    if data[:4] != b"RIFF" or data[8:12] != b"WEBP":
        return False
    if int.from_bytes(data[4:8], "little") != len(data) - 8:
        return False
    chunks = _riff_chunks(data, 12)
    if not chunks:
        return False
    for fourcc, payload in chunks:
        if fourcc not in WEBP_CHUNKS:
            return False
        if fourcc == b"VP8X" and (len(payload) != 10 or payload[0] & WEBP_EXIF_OR_XMP):
            return False
        if fourcc == b"ANMF":
            # A frame's 16-byte header is followed by its own chunks.
            frame = _riff_chunks(payload, 16)
            if not frame or any(inner not in WEBP_FRAME_CHUNKS for inner, _ in frame):
                return False
    return True


# Formats whose uploads are kept byte for byte when they hold nothing to strip: re-encoding
# them would lose quality and change the bytes, so an exported image would not import as itself.
ALREADY_CLEAN = {"JPEG": _jpeg_is_clean, "WEBP": _webp_is_clean}


def _clean(data: bytes) -> tuple[bytes, str, int, int]:
    """Decode the upload fully, then keep it if clean or re-encode it; (bytes, format, w, h)."""
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
                if kind in ALREADY_CLEAN and ALREADY_CLEAN[kind](data):
                    return data, kind, width, height
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


class StoredImage(Protocol):
    """What an image's address is made of: a stored Image, or a listing card's image."""

    @property
    def sha256(self) -> str: ...

    @property
    def content_type(self) -> str: ...


def image_url(image: StoredImage) -> str:
    """The image's permanent address: its content hash, so it can be cached forever."""
    extension = next(ext for ext, kind in EXTENSIONS.items() if kind == image.content_type)
    return url_for("images.serve", name=f"{image.sha256}.{extension}")


def _immutable(data: bytes, content_type: str, etag: str) -> BaseResponse:
    """Bytes whose address changes with them: cached for a year, a strong ETag for 304s."""
    response = Response(data, mimetype=content_type)
    response.set_etag(etag)
    response.cache_control.public = True
    response.cache_control.max_age = ONE_YEAR
    response.cache_control.immutable = True
    return response.make_conditional(request)


def _serve_copy(digest: str, width: str, extension: str) -> BaseResponse:
    """A resized copy of a stored image (made on the first ask), or 404."""
    from blog.authoring import renditions  # it builds on this module's formats

    if width not in {str(size) for size in renditions.WIDTHS} or extension not in EXTENSIONS:
        abort(404)
    copy = renditions.stored_copy(digest, int(width), EXTENSIONS[extension])
    if copy is None:
        abort(404, description="There is no image at this address.")
    return _immutable(copy.data, copy.content_type, copy.sha256)


@bp.get("/images/<name>")
def serve(name: str) -> BaseResponse:
    """An uploaded image's bytes, cacheable for a year: its address changes with its content.

    `<hash>-<width>.<ext>` names a resized copy of it (see blog/authoring/renditions.py).
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
