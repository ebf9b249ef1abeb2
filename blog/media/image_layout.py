"""How the four accepted image formats are laid out, read without decoding a pixel.

What decoding a file will cost shows in its structure: its frames, a JPEG's scans (a
progressive JPEG's decoder walks the whole picture once per scan), the segments, chunks or
blocks a decoder reads one by one, and a GIF's canvas, which frames larger than it enlarge.
`read` counts them, and stops once the count passes the most it is given, so that reading a
hostile file costs little too. Also here: whether a JPEG, PNG or WebP holds anything beyond
its pixels, and a GIF rebuilt from the blocks that show it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# JPEG markers kept as they are: the frame types browsers decode (baseline, extended sequential
# and progressive Huffman), the tables and the scans. Any other marker means re-encoding.
JPEG_FRAMES = {0xC0, 0xC1, 0xC2}
JPEG_TABLES = {0xC4, 0xDB, 0xDD}  # DHT, DQT, DRI
JPEG_SOS, JPEG_EOI = 0xDA, 0xD9
# Markers that carry no length: TEM and SOI (restarts are inside scans, see below).
JPEG_STANDALONE = {0x01, 0xD8}
# The application segments kept, by the signature their payload must start with.
JPEG_APPS = {0xE0: b"JFIF\0", 0xE2: b"ICC_PROFILE\0", 0xEE: b"Adobe"}
# Entropy-coded data after a scan header runs to the next marker: inside it, 0xFF is only
# followed by a stuffed 0x00 or by a restart marker (0xD0 to 0xD7).
JPEG_NEXT_MARKER = re.compile(rb"\xff(?![\x00\xd0-\xd7])")
# The next marker as libjpeg finds it: it skips any bytes before a 0xFF and any run of 0xFF
# fill bytes, and a stuffed zero or a restart marker does not end a scan.
JPEG_ANY_MARKER = re.compile(rb"\xff+([^\x00\xff\xd0-\xd7])")

# PNG chunks kept as they are: the pixels and how to show them (palette, transparency, colour
# space, gamma, pixel size, background). Text, times, EXIF, any private chunk, and an animation
# (re-encoded frame by frame) mean re-encoding.
PNG_CHUNKS = {
    b"IHDR", b"PLTE", b"IDAT", b"IEND", b"tRNS", b"gAMA", b"cHRM", b"sRGB", b"iCCP", b"sBIT",
    b"pHYs", b"bKGD",
}  # fmt: skip

# WebP chunks kept as they are: pixels, alpha, animation and the colour profile (kept when
# re-encoding too). Inside an animation frame only the pixel chunks may appear.
WEBP_CHUNKS = {b"VP8 ", b"VP8L", b"VP8X", b"ALPH", b"ANIM", b"ANMF", b"ICCP"}
WEBP_FRAME_CHUNKS = {b"VP8 ", b"VP8L", b"ALPH"}
WEBP_EXIF_OR_XMP = 0x08 | 0x04  # VP8X flag bits announcing EXIF and XMP chunks
WEBP_FRAME_HEADER = 16  # an ANMF chunk's position, size and timing, before its own chunks

GIF_EXTENSION, GIF_IMAGE, GIF_TRAILER = 0x21, 0x2C, 0x3B
GIF_GRAPHIC_CONTROL, GIF_APPLICATION = 0xF9, 0xFF
# The application extensions that say how often an animation repeats; any other (XMP, ICC,
# a program's own) is dropped with comments and plain text.
GIF_LOOPS = (b"\x0bNETSCAPE2.0", b"\x0bANIMEXTS1.0")
# Pillow skips any byte between blocks that starts none of them, as this reading does.
GIF_NEXT_BLOCK = re.compile(rb"[\x21\x2c\x3b]")


@dataclass(frozen=True, slots=True)
class Layout:
    """What decoding an image walks through, counted from its structure."""

    kind: str  # Pillow's name for the format
    frames: int
    scans: int  # a JPEG's scans (SOS markers); 0 in the other formats
    # Segments (JPEG), chunks (PNG, WebP) or blocks (GIF); past the most asked for, the
    # reading stopped and the other counts are lower bounds.
    chunks: int
    # A GIF's canvas as its frames enlarge it (Pillow grows the picture to fit each frame);
    # None in the other formats, whose frames never pass their canvas.
    canvas: tuple[int, int] | None = None
    # A GIF as it is kept: its blocks without comments, plain text, application data other
    # than the loop count, or anything after the end. None in the other formats.
    kept: bytes | None = None


def chunk_word(kind: str) -> str:
    """What a format's parts are called, for messages: segments, chunks or blocks."""
    return {"JPEG": "segments", "GIF": "blocks"}.get(kind, "chunks")


def read(data: bytes, most: int) -> Layout | None:
    """The image's layout, read until more than `most` segments, chunks or blocks were seen;
    None when it starts like none of the four formats, or is a GIF cut short."""
    if data[:2] == b"\xff\xd8":
        return _jpeg(data, most)
    if data[:8] == PNG_SIGNATURE:
        return _png(data, most)
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return _gif(data, most)
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return _webp(data, most)
    return None


def _jpeg(data: bytes, most: int) -> Layout:
    """A JPEG's segments and scans, found as libjpeg finds them, up to its end marker."""
    scans = chunks = 0
    at = 2
    while chunks <= most:
        found = JPEG_ANY_MARKER.search(data, at)
        if found is None:
            break
        marker, at = found.group(1)[0], found.end()
        if marker == JPEG_EOI:
            break
        chunks += 1
        if marker in JPEG_STANDALONE:
            continue
        scans += marker == JPEG_SOS
        at += int.from_bytes(data[at : at + 2], "big")  # a scan's data is searched through
    return Layout("JPEG", 1, scans, chunks)


def _png(data: bytes, most: int) -> Layout:
    """A PNG's chunks up to IEND, and its animation frames (one fcTL chunk each)."""
    frames = chunks = 0
    at = len(PNG_SIGNATURE)
    while at + 8 <= len(data) and chunks <= most:
        chunks += 1
        kind = data[at + 4 : at + 8]
        frames += kind == b"fcTL"
        if kind == b"IEND":
            break
        at += 12 + int.from_bytes(data[at : at + 4], "big")
    return Layout("PNG", max(frames, 1), 0, chunks)


def _webp(data: bytes, most: int) -> Layout:
    """A WebP's chunks, those inside its animation frames too, and its frames."""
    frames = chunks = 0
    at = 12
    while at + 8 <= len(data) and chunks <= most:
        chunks += 1
        size = int.from_bytes(data[at + 4 : at + 8], "little")
        end = at + 8 + size
        if data[at : at + 4] == b"ANMF":
            frames += 1
            inner = at + 8 + WEBP_FRAME_HEADER
            while inner + 8 <= min(end, len(data)) and chunks <= most:
                chunks += 1
                inner_size = int.from_bytes(data[inner + 4 : inner + 8], "little")
                inner += 8 + inner_size + inner_size % 2
        at = end + size % 2
    return Layout("WEBP", max(frames, 1), 0, chunks)


def _sub_blocks_end(data: bytes, at: int) -> int | None:
    """Where a GIF block's data sub-blocks starting at `at` end (after the empty one that
    closes them), or None when the data ends first."""
    while at < len(data):
        size = data[at]
        if size == 0:
            return at + 1
        at += 1 + size
    return None


def _colour_table(flags: int) -> int:
    """The size in bytes of the colour table a GIF descriptor's flags announce."""
    return 3 << ((flags & 7) + 1) if flags & 0x80 else 0


def _gif(data: bytes, most: int) -> Layout | None:
    """A GIF's blocks and frames, the canvas its frames make, and the GIF rebuilt from the
    header, colour table, graphic controls, loop count and images alone; None if cut short."""
    if len(data) < 13:
        return None
    width, height = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
    at = 13 + _colour_table(data[10])
    kept = [data[:at]]
    frames = chunks = 0
    while at < len(data) and data[at] != GIF_TRAILER and chunks <= most:
        introducer = data[at]
        end: int | None
        if introducer == GIF_EXTENSION:
            end = _sub_blocks_end(data, at + 2)
            label, first = data[at + 1 : at + 2], data[at + 2 : at + 14]
            keep = label == bytes([GIF_GRAPHIC_CONTROL]) or (
                label == bytes([GIF_APPLICATION]) and first in GIF_LOOPS
            )
        elif introducer == GIF_IMAGE:
            if at + 10 > len(data):
                return None
            left, top, frame_width, frame_height = (
                int.from_bytes(data[i : i + 2], "little") for i in range(at + 1, at + 9, 2)
            )
            width, height = max(width, left + frame_width), max(height, top + frame_height)
            frames += 1
            # After the descriptor and its colour table, one byte: the LZW code size.
            end = _sub_blocks_end(data, at + 10 + _colour_table(data[at + 9]) + 1)
            keep = True
        else:
            found = GIF_NEXT_BLOCK.search(data, at + 1)
            at = found.start() if found else len(data)
            continue
        if end is None:
            return None
        chunks += 1
        if keep:
            kept.append(data[at:end])
        at = end
    kept.append(bytes([GIF_TRAILER]))
    return Layout("GIF", max(frames, 1), 0, chunks, (width, height), b"".join(kept))


def jpeg_is_clean(data: bytes) -> bool:
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


def png_is_clean(data: bytes) -> bool:
    """Whether a PNG holds only its pixels and how to show them, and ends at its IEND chunk."""
    if data[:8] != PNG_SIGNATURE:
        return False
    at = len(PNG_SIGNATURE)
    while at + 12 <= len(data):
        kind = data[at + 4 : at + 8]
        if kind not in PNG_CHUNKS:
            return False
        at += 12 + int.from_bytes(data[at : at + 4], "big")
        if kind == b"IEND":
            return at == len(data)
    return False


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


def webp_is_clean(data: bytes) -> bool:
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
            frame = _riff_chunks(payload, WEBP_FRAME_HEADER)
            if not frame or any(inner not in WEBP_FRAME_CHUNKS for inner, _ in frame):
                return False
    return True
