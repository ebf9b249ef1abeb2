"""Resized copies of stored images, so pages send each reader a picture the size they show.

Every stored image wider than 480 px has copies 480, 960 and 1600 px wide (only the widths
smaller than itself: nothing is made larger), in WebP and in its own format, except copies
taller than WebP can hold. A copy is made the first time its address is asked for and kept
in `image_renditions`; its address names the original's hash and the width, so it never
changes and is cached for good. The original stays as it was uploaded: it is what exports
write.

Making a copy is bounded: one process at a time makes a given copy (a file lock under the
instance folder, so it holds across the server's processes; the others wait for it a
moment, then send the reader to the original), and it must be done within IMAGE_TIME_LIMIT
seconds of CPU time. A copy that cannot be made (the limit stopped it, or the original is
over the upload limits, having been stored before them) is kept as an empty row, so no
later request tries again: its address sends readers to the original. Deleting those rows
(`byte_size` 0) lets the copies be tried again, after raising the limit say.
"""

from __future__ import annotations

import fcntl
import hashlib
import io
import re
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import PIL.Image
import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import current_app
from PIL import ImageOps, ImageSequence

from blog import markup
from blog.database import begin_write
from blog.extensions import db
from blog.markup import Copies
from blog.markup.budget import TooSlow, within
from blog.media import images
from blog.models import Image, ImageRendition

WIDTHS = (480, 960, 1600)
WEBP = "image/webp"
# Media type -> (Pillow's format name, file extension), from the image store's own table.
FORMATS = {content_type: (kind, ext) for kind, (content_type, ext) in images.FORMATS.items()}
# Lossy copies: small for photographs, and still sharp enough for diagrams at these widths.
JPEG_QUALITY = 82
WEBP_QUALITY = 80
ORIENTATION = 0x0112  # the EXIF tag
# The largest width or height a format holds: WebP's is 16,383 px. PNG's and GIF's are past
# any stored image, and no copy of a JPEG is taller than the JPEG itself.
MAX_SIDE = {WEBP: 16_383}
# How long a request waits for another process to make the copy it asks for (wall-clock
# seconds) before it sends the reader to the original instead, and how often it looks.
WAIT_FOR_COPY = 2.0
_LOOK_EVERY = 0.02


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


def copy_height(image: SizedImage, width: int) -> int:
    """The height of the image's copy `width` pixels wide (resize() makes it so)."""
    return max(1, round(image.height * width / image.width))


def copy_widths(image: SizedImage, content_type: str) -> tuple[int, ...]:
    """The widths of the image's copies in a format: those smaller than the image whose
    copy the format can hold."""
    most = MAX_SIDE.get(content_type)
    return tuple(
        width
        for width in widths_for(image.width)
        if most is None or max(width, copy_height(image, width)) <= most
    )


def copy_url(src: str, image: SizedImage, width: int, content_type: str) -> str:
    """The permanent address of one copy, beside the original's address `src`: the
    original's hash, the width and the format."""
    folder = src.rpartition("/")[0]
    return f"{folder}/{image.sha256}-{width}.{FORMATS[content_type][1]}"


def sources(image: SizedImage, src: str) -> Copies | None:
    """The image's size and srcset values (`src` is the original's address), or None when
    it is too small to have copies."""
    if not widths_for(image.width):
        return None
    own = [
        f"{copy_url(src, image, width, image.content_type)} {width}w"
        for width in copy_widths(image, image.content_type)
    ]
    own.append(f"{src} {image.width}w")
    webp = ""
    if image.content_type != WEBP:
        webp = ", ".join(
            f"{copy_url(src, image, width, WEBP)} {width}w" for width in copy_widths(image, WEBP)
        )
    return Copies(image.width, image.height, ", ".join(own), webp)


# The address of a stored image as a body writes it: /images/<sha256>.<ext>.
BODY_IMAGE = re.compile(r"/images/([0-9a-f]{64})\.(png|jpg|webp|gif)\b")
# The most stored images one body's render looks up: more are shown without copies.
MAX_BODY_IMAGES = 200


def render_body(markdown_text: str, unsaved: Iterable[SizedImage] = ()) -> markup.Rendered:
    """A body as pages show it, the one rule for the store, the import's check and the
    editor's preview: the site's link policy, and the stored images it names (and `unsaved`,
    see `copies_in`) offering their resized copies. TooSlow past the time limit."""
    return markup.render(
        markdown_text,
        nofollow=current_app.config["LINK_NOFOLLOW"],
        images=copies_in(markdown_text, unsaved),
    )


def copies_in(markdown_text: str, unsaved: Iterable[SizedImage] = ()) -> dict[str, Copies]:
    """For each stored image a body names (as `/images/<hash>.<ext>`), what the render
    needs to offer its copies; images too small for copies get their size alone.

    `unsaved` are images about to be stored (an import's, while it checks, writing nothing):
    they count as stored, so the render is the one the body gets once they are."""
    named: dict[str, str] = {}
    for found in BODY_IMAGE.finditer(markdown_text):
        named.setdefault(found.group(1), found.group(0))
        if len(named) >= MAX_BODY_IMAGES:
            break
    if not named:
        return {}
    rows: list[SizedImage] = list(
        db.session.execute(
            sa.select(Image.sha256, Image.content_type, Image.width, Image.height).where(
                Image.sha256.in_(named)
            )
        )
    )
    stored = {row.sha256 for row in rows}
    for image in unsaved:
        if image.sha256 in named and image.sha256 not in stored:
            rows.append(image)
            stored.add(image.sha256)
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
        if kind == "GIF" and frames[0].mode == "RGBA":
            # Each frame is whole: clear the last before drawing it. Drawn over the last one
            # (Pillow's default), a pixel that turns see-through would keep its old colour.
            options["disposal"] = 2
    out = io.BytesIO()
    frames[0].save(out, kind, **options)
    return out.getvalue(), height


@dataclass(frozen=True, slots=True)
class Copy:
    """A copy's bytes as the route sends them, with the hash that is its ETag."""

    data: bytes
    sha256: str
    content_type: str


@dataclass(frozen=True, slots=True)
class Original:
    """No copy to send: the reader gets the original, named `<hash>.<ext>`, instead. For
    good (`lasting`) when the copy could not be made; this once while another makes it."""

    name: str
    lasting: bool


def _kept_copy(digest: str, width: int, content_type: str) -> Copy | Original | None:
    """The copy as kept: its bytes, the original for one that could not be made, or None."""
    query = (
        sa.select(ImageRendition.data, ImageRendition.sha256, Image.content_type)
        .join(Image, Image.id == ImageRendition.image_id)
        .where(
            Image.sha256 == digest,
            ImageRendition.width == width,
            ImageRendition.content_type == content_type,
        )
    )
    row = db.session.execute(query).first()
    if row is None:
        return None
    if not row.data:
        return Original(f"{digest}.{FORMATS[row.content_type][1]}", lasting=True)
    return Copy(row.data, row.sha256, content_type)


def stored_copy(digest: str, width: int, content_type: str) -> Copy | Original | None:
    """The copy of the image with this hash, made and kept now if it is the first ask.

    None when there is no such image, or it has no copy of that width and format; the
    Original when the copy could not be made, or another process is making it still.
    """
    found = _kept_copy(digest, width, content_type)
    if found is not None:
        return found
    image = db.session.scalar(
        sa.select(Image).options(so.undefer(Image.data)).where(Image.sha256 == digest)
    )
    if image is None or content_type not in formats_for(image.content_type):
        return None
    if width not in copy_widths(image, content_type):
        return None
    image_id, data, height = image.id, image.data, copy_height(image, width)
    name = f"{digest}.{FORMATS[image.content_type][1]}"
    db.session.rollback()  # no transaction stays open while waiting or resizing
    with _making(lock_path(digest, width, content_type)) as held:
        if not held:
            return Original(name, lasting=False)
        found = _kept_copy(digest, width, content_type)  # kept while this one waited?
        if found is not None:
            return found
        db.session.rollback()
        copy = _made(data, width, content_type)
        if copy is None:
            current_app.logger.warning(
                "Image %s has no %s copy %d px wide: readers get the original",
                digest,
                content_type,
                width,
            )
            _keep(image_id, width, height, Copy(b"", "", content_type))
            return Original(name, lasting=True)
        _keep(image_id, width, height, copy)
        return copy


def lock_path(digest: str, width: int, content_type: str) -> Path:
    """The file a process holds locked while it makes this copy (instance/copy-locks/)."""
    folder = Path(current_app.instance_path) / "copy-locks"
    return folder / f"{digest}-{width}.{FORMATS[content_type][1]}"


@contextmanager
def _making(path: Path) -> Iterator[bool]:
    """Hold the copy's file lock while the block runs: True once held, False if another
    process still held it after WAIT_FOR_COPY seconds. The file goes once the block is done
    (the copy is kept by then: a process that locked it meanwhile finds the copy and leaves
    it); a lock file that cannot be made, in a read-only folder say, holds nothing."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = open(path, "ab")  # noqa: SIM115 (closed below, after the lock's release)
    except OSError:
        yield True
        return
    with handle:
        deadline = time.monotonic() + WAIT_FOR_COPY
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    yield False
                    return
                time.sleep(_LOOK_EVERY)
        yield True
        path.unlink(missing_ok=True)


def _made(original: bytes, width: int, content_type: str) -> Copy | None:
    """A new copy, made within IMAGE_TIME_LIMIT; None when it cannot be: the original is
    over the upload limits (stored before they were), fails to decode, or the time limit
    stops the work (which is logged)."""
    limit = current_app.config["IMAGE_TIME_LIMIT"]
    try:
        images.layout_within_limits(original)
        data, _ = within(limit, lambda: resize(original, width, content_type))
    except (
        images.ImageError,
        TooSlow,
        PIL.Image.DecompressionBombError,
        OSError,
        ValueError,
        SyntaxError,
        EOFError,
        IndexError,
        KeyError,
        TypeError,
    ) as error:
        current_app.logger.warning("A resized copy could not be made: %s", error)
        return None
    return Copy(data, hashlib.sha256(data).hexdigest(), content_type)


def _keep(image_id: int, width: int, height: int, copy: Copy) -> None:
    """Store a fresh copy (or, with no bytes, the note that it cannot be made) in its own
    write transaction; another process that stored it meanwhile wins."""
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
