"""Resized copies of stored images, so pages send each reader a picture the size they show.

Every stored image wider than 480 px has copies 480, 960 and 1600 px wide (only the widths
smaller than itself: nothing is made larger), in WebP and in its own format. A copy is made
the first time its address is asked for and kept in `image_renditions`; its address names
the original's hash and the width, so it never changes and is cached for good. The original
stays as it was uploaded: it is what exports write.
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass
from typing import Protocol

import PIL.Image
import sqlalchemy as sa
import sqlalchemy.orm as so
from PIL import ImageOps, ImageSequence

from blog.authoring import images
from blog.database import begin_write
from blog.extensions import db
from blog.markup import Copies
from blog.models import Image, ImageRendition

WIDTHS = (480, 960, 1600)
WEBP = "image/webp"
# Media type -> (Pillow's format name, file extension), from the image store's own table.
FORMATS = {content_type: (kind, ext) for kind, (content_type, ext) in images.FORMATS.items()}
# Lossy copies: small for photographs, and still sharp enough for diagrams at these widths.
JPEG_QUALITY = 82
WEBP_QUALITY = 80
ORIENTATION = 0x0112  # the EXIF tag


class SizedImage(Protocol):
    """What a copy's address and the srcset are made from: a stored Image or a card's."""

    @property
    def sha256(self) -> str: ...

    @property
    def content_type(self) -> str: ...

    @property
    def width(self) -> int: ...

    @property
    def height(self) -> int: ...


def widths_for(width: int) -> tuple[int, ...]:
    """The copy widths an image of this width gets: those smaller than itself."""
    return tuple(size for size in WIDTHS if size < width)


def formats_for(content_type: str) -> tuple[str, ...]:
    """The media types of an image's copies: WebP, and its own format when that is another."""
    return (WEBP,) if content_type == WEBP else (WEBP, content_type)


def copy_url(src: str, image: SizedImage, width: int, content_type: str) -> str:
    """The permanent address of one copy, beside the original's address `src`: the
    original's hash, the width and the format."""
    folder = src.rpartition("/")[0]
    return f"{folder}/{image.sha256}-{width}.{FORMATS[content_type][1]}"


def sources(image: SizedImage, src: str) -> Copies | None:
    """The image's size and srcset values (`src` is the original's address), or None when
    it is too small to have copies."""
    widths = widths_for(image.width)
    if not widths:
        return None
    own = [f"{copy_url(src, image, width, image.content_type)} {width}w" for width in widths]
    own.append(f"{src} {image.width}w")
    webp = ""
    if image.content_type != WEBP:
        webp = ", ".join(f"{copy_url(src, image, width, WEBP)} {width}w" for width in widths)
    return Copies(image.width, image.height, ", ".join(own), webp)


# The address of a stored image as a body writes it: /images/<sha256>.<ext>.
BODY_IMAGE = re.compile(r"/images/([0-9a-f]{64})\.(png|jpg|webp|gif)\b")
# The most stored images one body's render looks up: more are shown without copies.
MAX_BODY_IMAGES = 200


def copies_in(markdown_text: str) -> dict[str, Copies]:
    """For each stored image a body names (as `/images/<hash>.<ext>`), what the render
    needs to offer its copies; images too small for copies get their size alone."""
    named: dict[str, str] = {}
    for found in BODY_IMAGE.finditer(markdown_text):
        named.setdefault(found.group(1), found.group(0))
        if len(named) >= MAX_BODY_IMAGES:
            break
    if not named:
        return {}
    rows = db.session.execute(
        sa.select(Image.sha256, Image.content_type, Image.width, Image.height).where(
            Image.sha256.in_(named)
        )
    )
    found_copies: dict[str, Copies] = {}
    for row in rows:
        src = named[row.sha256]
        if FORMATS[row.content_type][1] != src.rpartition(".")[2]:
            continue  # the address names another format: it is a 404
        found_copies[src] = sources(row, src) or Copies(row.width, row.height, "", "")
    return found_copies


def _frames(
    picture: PIL.Image.Image, size: tuple[int, int]
) -> tuple[list[PIL.Image.Image], list[int]]:
    """Every frame of the picture resized, in a mode every output format takes, and how
    long each is shown (ms)."""
    mode = "RGBA" if picture.has_transparency_data or picture.mode in ("PA", "LA") else "RGB"
    frames, durations = [], []
    for frame in ImageSequence.Iterator(picture):
        converted = frame.convert(mode) if frame.mode != mode else frame
        frames.append(converted.resize(size, PIL.Image.Resampling.LANCZOS, reducing_gap=3.0))
        durations.append(int(frame.info.get("duration", 100)))
    return frames, durations


def resize(data: bytes, width: int, content_type: str) -> tuple[bytes, int]:
    """A copy of the image `width` pixels wide in the given format; (bytes, height).

    EXIF orientation is applied first (stored images have had it applied already; this
    keeps any other caller honest), animations keep every frame and their timing, and the
    colour profile is kept where the pixels stay in its colour space.
    """
    with PIL.Image.open(io.BytesIO(data)) as opened:
        animated = getattr(opened, "n_frames", 1) > 1
        turned = not animated and opened.getexif().get(ORIENTATION, 1) != 1
        picture = ImageOps.exif_transpose(opened) if turned else opened
        height = max(1, round(picture.height * width / picture.width))
        if opened.format == "JPEG" and not turned:
            opened.draft(opened.mode, (width, height))  # decodes at a smaller scale: faster
        icc = opened.info.get("icc_profile") if opened.mode != "CMYK" else None
        loop = opened.info.get("loop", 0)
        frames, durations = _frames(picture, (width, height))
    kind = FORMATS[content_type][0]
    options: dict[str, object] = {}
    if kind == "JPEG":
        frames = [frames[0].convert("RGB")]
        options = {"quality": JPEG_QUALITY, "optimize": True, "progressive": True}
    elif kind == "WEBP":
        options = {"quality": WEBP_QUALITY, "method": 4}
    if icc and kind != "GIF":
        options["icc_profile"] = icc
    if len(frames) > 1:
        options |= {
            "save_all": True,
            "append_images": frames[1:],
            "duration": durations,
            "loop": loop,
        }
    out = io.BytesIO()
    frames[0].save(out, kind, **options)
    return out.getvalue(), height


@dataclass(frozen=True, slots=True)
class Copy:
    """A copy's bytes as the route sends them, with the hash that is its ETag."""

    data: bytes
    sha256: str
    content_type: str


def stored_copy(digest: str, width: int, content_type: str) -> Copy | None:
    """The copy of the image with this hash, made and kept now if it is the first ask.

    None when there is no such image, or it has no copy of that width and format.
    """
    query = (
        sa.select(ImageRendition.data, ImageRendition.sha256)
        .join(Image, Image.id == ImageRendition.image_id)
        .where(
            Image.sha256 == digest,
            ImageRendition.width == width,
            ImageRendition.content_type == content_type,
        )
    )
    row = db.session.execute(query).first()
    if row is not None:
        return Copy(row.data, row.sha256, content_type)
    image = db.session.scalar(
        sa.select(Image).options(so.undefer(Image.data)).where(Image.sha256 == digest)
    )
    if image is None or width not in widths_for(image.width):
        return None
    if content_type not in formats_for(image.content_type):
        return None
    image_id, original = image.id, image.data
    data, height = resize(original, width, content_type)
    copy = Copy(data, hashlib.sha256(data).hexdigest(), content_type)
    _keep(image_id, width, height, copy)
    return copy


def _keep(image_id: int, width: int, height: int, copy: Copy) -> None:
    """Store a fresh copy in its own write transaction (the read's is ended first, so no
    lock is held while resizing); another process that stored it meanwhile wins."""
    db.session.rollback()
    begin_write()
    db.session.add(
        ImageRendition(
            image_id=image_id,
            width=width,
            height=height,
            content_type=copy.content_type,
            sha256=copy.sha256,
            data=copy.data,
            byte_size=len(copy.data),
        )
    )
    try:
        db.session.commit()
    except sa.exc.IntegrityError:  # made by another request at the same moment
        db.session.rollback()
