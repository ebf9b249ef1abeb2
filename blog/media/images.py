"""Uploaded illustrations: checked and cleaned by Pillow, kept in the database, served by hash.

What checking an upload may cost is bounded twice: its structure is read first, without
decoding anything (blog/media/image_layout.py), and refused past the limits below on pixels,
frames, scans and chunks; then the decode runs under IMAGE_TIME_LIMIT seconds of CPU time.
"""

from __future__ import annotations

import hashlib
import io
import re
import warnings
from dataclasses import dataclass
from typing import IO, Protocol

import PIL.Image
import sqlalchemy as sa
from flask import current_app, url_for
from PIL import ImageOps

from blog.extensions import db
from blog.markup.budget import TooSlow, within
from blog.media import image_layout
from blog.models import Image

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
# A progressive JPEG's decoder walks the whole picture once per scan: a 0.6 MB file of
# 10,000 repeated scans took 8 s of CPU at 6324 px a side. Encoders write about 10 (libjpeg's
# progressive script: 10 in colour, 6 in grey; tools that tune the scans stay within a few
# dozen); 100 of the costliest scans over 40 megapixels decode in about 3 s.
MAX_SCANS = 100
# Segments, chunks or blocks, each read on its own by Pillow's Python code: a real image has
# a few thousand at most (a 5 MB PNG in libpng's 8 KB IDAT chunks has 640, a 500-frame GIF
# about 1,000). A million empty JPEG segments fit in 5 MB and took 3 s to read.
MAX_CHUNKS = 20_000
ONE_YEAR = 365 * 24 * 3600
NAME = re.compile(r"([0-9a-f]{64})\.([a-z]{3,4})")
COPY_NAME = re.compile(r"([0-9a-f]{64})-([0-9]{3,4})\.([a-z]{3,4})")
HASH = re.compile(r"[0-9a-f]{64}")
NOT_AN_IMAGE = "That file is not a PNG, JPEG, WebP or GIF image (or it is damaged)."


class ImageError(ValueError):
    """An upload that is not an image this site accepts; `status` is 400 or 413."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status

    def __reduce__(self) -> tuple[type[ImageError], tuple[str, int]]:
        """Pickled with its status, as a decode in a child process sends it back."""
        return (ImageError, (self.message, self.status))


def megabytes(size: int) -> str:
    """A byte count as editors read it, like `5 MB` or `6.2 MB`."""
    return f"{size / (1024 * 1024):.1f}".removesuffix(".0") + " MB"


def too_large(size: int, limit: int) -> str:
    """What an editor is told of an image over the limit: its size and the limit (in bytes
    when both would round to the same megabytes)."""
    said, most = megabytes(size), megabytes(limit)
    if said == most:
        said, most = f"{size:,} bytes", f"{limit:,} bytes"
    return f"This image is {said}; the limit is {most}."


def upload_bytes(stream: IO[bytes]) -> bytes:
    """An uploaded file's bytes, read no further than one past MAX_IMAGE_BYTES; an ImageError
    (413) naming the file's whole size when it is larger (the form parser has already
    spooled it, so its size is known without reading it)."""
    limit = current_app.config["MAX_IMAGE_BYTES"]
    data = stream.read(limit + 1)
    if len(data) <= limit:
        return data
    size = len(data)
    if stream.seekable():
        size = max(size, stream.seek(0, io.SEEK_END))
    raise ImageError(too_large(size, limit), 413)


def _reencoded(picture: PIL.Image.Image, kind: str) -> tuple[bytes, int, int]:
    """The picture saved again with only its pixels (and colour profile): no EXIF, XMP or text.

    Returns the bytes with the final width and height (a JPEG's EXIF rotation is applied).
    PNG, JPEG and WebP only: a GIF is kept as uploaded, less its metadata blocks.
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
    else:
        options |= {"lossless": lossless, "quality": 100 if lossless else 90, "xmp": b""}
        picture.save(out, "WEBP", save_all=animated, **options)
    return out.getvalue(), picture.width, picture.height


# Formats whose uploads are kept byte for byte when they hold nothing to strip: re-encoding
# them would lose quality and change the bytes, so an exported image would not import as itself.
# (A PNG re-encoded costs twice its decoding: a screenshot or an imported site's pictures go
# in at a third of the CPU when they are kept.)
ALREADY_CLEAN = {
    "JPEG": image_layout.jpeg_is_clean,
    "PNG": image_layout.png_is_clean,
    "WEBP": image_layout.webp_is_clean,
}


def layout_within_limits(data: bytes) -> image_layout.Layout:
    """The image's layout, read without decoding it: ImageError (413) when its scans or its
    segments, chunks or blocks pass their limits, or (400) when it is none of the four formats."""
    layout = image_layout.read(data, MAX_CHUNKS)
    if layout is None:
        raise ImageError(NOT_AN_IMAGE)
    read_through = layout.chunks <= MAX_CHUNKS
    if layout.scans > MAX_SCANS:
        scans = f"{layout.scans:,}" if read_through else f"at least {layout.scans:,}"
        raise ImageError(
            f"The image is a progressive JPEG of {scans} scans; the limit is {MAX_SCANS} scans.",
            413,
        )
    if not read_through:
        word = image_layout.chunk_word(layout.kind)
        raise ImageError(
            f"The image is made of more than {MAX_CHUNKS:,} {word};"
            f" the limit is {MAX_CHUNKS:,} {word}.",
            413,
        )
    return layout


def _check_size(width: int, height: int, frames: int) -> None:
    """Refuse (413) a canvas or an animation whose decoding would cost too much."""
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


def _decoded(data: bytes, layout: image_layout.Layout) -> tuple[bytes, str, int, int]:
    """Decode the upload fully, then keep it if clean or re-encode it; (bytes, format, w, h)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", PIL.Image.DecompressionBombWarning)
        with PIL.Image.open(io.BytesIO(data), formats=list(FORMATS)) as probe:
            kind = probe.format or ""
            probe.verify()
        with PIL.Image.open(io.BytesIO(data), formats=[kind]) as picture:
            width, height = picture.size
            if layout.canvas is not None:  # a GIF's frames may make its canvas larger
                width, height = max(width, layout.canvas[0]), max(height, layout.canvas[1])
            frames = max(getattr(picture, "n_frames", 1), layout.frames)
            _check_size(width, height, frames)
            picture.load()
            if kind == "GIF":
                for index in range(1, frames):  # every frame must decode
                    picture.seek(index)
                    picture.load()
                return data, kind, *picture.size
            if kind in ALREADY_CLEAN and ALREADY_CLEAN[kind](data):
                return data, kind, width, height
            cleaned, width, height = _reencoded(picture, kind)
            return cleaned, kind, width, height


def _clean(data: bytes) -> tuple[bytes, str, int, int]:
    """Check the upload's layout, then decode and clean it within the time limit;
    (bytes, format, width, height)."""
    layout = layout_within_limits(data)
    if layout.kept is not None:
        data = layout.kept
    limit = current_app.config["IMAGE_TIME_LIMIT"]
    try:
        return within(limit, lambda: _decoded(data, layout))
    except ImageError:
        raise
    except TooSlow as slow:
        raise ImageError(
            f"The image takes more than {limit:g} seconds to decode;"
            f" the limit is {limit:g} seconds.",
            413,
        ) from slow
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
        raise ImageError(NOT_AN_IMAGE) from error


def store_image(data: bytes) -> Image:
    """Check, clean and add an uploaded image to the session (not committed); same bytes, same row.

    Raises ImageError for anything that is not a real PNG, JPEG, WebP or GIF within the limit.
    """
    limit = current_app.config["MAX_IMAGE_BYTES"]
    if not data:
        raise ImageError("The file is empty.")
    if len(data) > limit:
        raise ImageError(too_large(len(data), limit), 413)
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


@dataclass(frozen=True, slots=True)
class Kept:
    """An image just committed, by what its address is made of (see `StoredImage`)."""

    sha256: str
    content_type: str


def commit_image(data: bytes) -> Kept:
    """`store_image`, committed at once: images are immutable and shared by hash, so an upload
    outlives whatever it came with (a refused save, a preview). The same bytes stored by
    another request at this moment are no error: theirs are these. ImageError as
    `store_image`."""
    image = store_image(data)
    kept = Kept(image.sha256, image.content_type)  # read before the commit expires them
    try:
        db.session.commit()
    except sa.exc.IntegrityError:
        db.session.rollback()
    return kept


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
