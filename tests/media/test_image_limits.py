"""What checking an upload may cost: its scans, frames, chunks and canvas are counted before
anything is decoded, and the decode itself runs under a time limit."""

from __future__ import annotations

import io
import re
import struct
import time
import zlib

import PIL.Image
import pytest

from blog.extensions import db
from blog.media.images import MAX_CHUNKS, MAX_SCANS, ImageError, store_image

# Entropy-coded data runs to the next marker that is neither a stuffed zero nor a restart.
NEXT_MARKER = re.compile(rb"\xff(?![\x00\xd0-\xd7])")
SOS, EOI = 0xDA, 0xD9


def scans_of(jpeg: bytes) -> list[bytes]:
    """Each scan of a JPEG Pillow wrote: its SOS segment with the entropy-coded data after it."""
    found, at = [], 2
    while jpeg[at + 1] != EOI:
        end = at + 2 + int.from_bytes(jpeg[at + 2 : at + 4], "big")
        if jpeg[at + 1] == SOS:
            end = NEXT_MARKER.search(jpeg, end).start()
            found.append(jpeg[at:end])
        at = end
    return found


def progressive_jpeg(size: tuple[int, int], scans: int) -> bytes:
    """A valid progressive JPEG of `scans` scans: Pillow's own, with its smallest scan repeated
    before the end (a repeated scan only refines coefficients again, and costs a pass)."""
    out = io.BytesIO()
    PIL.Image.new("RGB", size, (200, 80, 20)).save(out, "JPEG", progressive=True)
    jpeg = out.getvalue()
    own = scans_of(jpeg)
    smallest = min(own, key=len)
    return jpeg[:-2] + smallest * (scans - len(own)) + jpeg[-2:]


def png_chunk(kind: bytes, payload: bytes) -> bytes:
    """One PNG chunk with its length and CRC."""
    return (
        struct.pack(">I", len(payload))
        + kind
        + payload
        + struct.pack(">I", zlib.crc32(kind + payload))
    )


def png_of_many_chunks(chunks: int) -> bytes:
    """A small valid PNG whose pixels are followed by `chunks` empty IDAT chunks."""
    out = io.BytesIO()
    PIL.Image.new("RGB", (64, 40), (200, 80, 20)).save(out, "PNG")
    png = out.getvalue()
    return png[:-12] + png_chunk(b"IDAT", b"") * chunks + png[-12:]


def gif_frame(size: tuple[int, int], at: tuple[int, int] = (0, 0)) -> bytes:
    """One GIF image block (descriptor and LZW data) of one colour, placed at `at`."""
    out = io.BytesIO()
    picture = PIL.Image.new("P", size, 0)
    picture.putpalette([30, 60, 90, 255, 255, 255])
    picture.save(out, "GIF")
    gif = out.getvalue()
    flags = gif[10]
    at_block = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    block = gif[at_block:-1]
    assert block[0] == 0x2C
    return block[:1] + struct.pack("<HH", *at) + block[5:]


def gif_of_frames(canvas: tuple[int, int], frames: list[bytes]) -> bytes:
    """A GIF89a with this logical screen, a two-colour palette and these image blocks."""
    header = b"GIF89a" + struct.pack("<HH", *canvas) + bytes([0x80, 0, 0])
    palette = bytes([30, 60, 90, 255, 255, 255])
    control = b"\x21\xf9\x04\x00\x04\x00\x00\x00"  # 40 ms, no disposal, no transparency
    return header + palette + b"".join(control + frame for frame in frames) + b"\x3b"


def refused(app, data: bytes) -> tuple[ImageError, float]:
    """The ImageError store_image raises for `data`, and the seconds it took to say so."""
    started = time.perf_counter()
    with app.app_context(), pytest.raises(ImageError) as error:
        store_image(data)
    return error.value, time.perf_counter() - started


# JPEG scans ------------------------------------------------------------------------------------


def test_a_progressive_jpeg_of_thousands_of_scans_is_a_quick_413(app):
    """Each scan walks the whole image again: thousands of them are refused before decoding."""
    error, seconds = refused(app, progressive_jpeg((2048, 2048), 5000))
    assert error.status == 413
    assert f"the limit is {MAX_SCANS} scans" in error.message
    assert "5,000 scans" in error.message
    assert seconds < 2


def test_scans_are_counted_up_to_the_limit(app):
    """A progressive JPEG of exactly MAX_SCANS scans is kept; one more is refused."""
    at_limit = progressive_jpeg((64, 40), MAX_SCANS)
    with app.app_context():
        assert store_image(at_limit).data == at_limit
        db.session.rollback()
    error, _ = refused(app, progressive_jpeg((64, 40), MAX_SCANS + 1))
    assert error.status == 413 and f"{MAX_SCANS + 1} scans" in error.message


# Segments, chunks and blocks -------------------------------------------------------------------


def test_a_jpeg_of_a_million_empty_segments_is_a_quick_413(app):
    """Empty comment segments cost nothing to send and a loop turn each to read."""
    out = io.BytesIO()
    PIL.Image.new("RGB", (64, 40)).save(out, "JPEG")
    jpeg = out.getvalue()
    error, seconds = refused(app, jpeg[:2] + b"\xff\xfe\x00\x02" * 1_000_000 + jpeg[2:])
    assert error.status == 413
    assert f"the limit is {MAX_CHUNKS:,} segments" in error.message
    assert seconds < 2


def test_a_png_of_too_many_chunks_is_a_quick_413(app):
    """Four hundred thousand empty IDAT chunks after real pixels are refused unread."""
    error, seconds = refused(app, png_of_many_chunks(400_000))
    assert error.status == 413
    assert f"the limit is {MAX_CHUNKS:,} chunks" in error.message
    assert seconds < 2


def test_chunks_are_counted_up_to_the_limit(app):
    """A PNG of MAX_CHUNKS chunks in all (IHDR, IDAT and IEND among them) is accepted."""
    with app.app_context():
        assert store_image(png_of_many_chunks(MAX_CHUNKS - 3)).width == 64
        db.session.rollback()
    error, _ = refused(app, png_of_many_chunks(MAX_CHUNKS - 2))
    assert error.status == 413


def test_a_webp_of_too_many_chunks_is_a_quick_413(app):
    """Unknown chunks by the hundred thousand are refused before they are read one by one."""
    out = io.BytesIO()
    PIL.Image.new("RGB", (64, 40)).save(out, "WEBP")
    chunks = out.getvalue()[12:] + b"NOTE\0\0\0\0" * 500_000
    webp = b"RIFF" + (len(chunks) + 4).to_bytes(4, "little") + b"WEBP" + chunks
    error, seconds = refused(app, webp)
    assert error.status == 413
    assert f"the limit is {MAX_CHUNKS:,} chunks" in error.message
    assert seconds < 2


# Canvas and frames -----------------------------------------------------------------------------


def test_gif_frames_larger_than_their_canvas_count_at_their_own_size(app):
    """A GIF on a 1×1 canvas whose frames are 6000×6000: Pillow grows the canvas to fit each
    frame, so the frames' size is what decoding costs, and it is over the limit."""
    gif = gif_of_frames((1, 1), [gif_frame((1, 1))] + [gif_frame((6000, 6000))] * 4)
    assert len(gif) < 200_000
    error, seconds = refused(app, gif)
    assert error.status == 413
    assert "6000×6000 pixels over 5 frames" in error.message
    assert seconds < 2


def test_gif_frames_are_counted_from_their_blocks(app):
    """Frames past MAX_FRAMES are refused, whatever Pillow would make of them."""
    gif = gif_of_frames((8, 8), [gif_frame((8, 8))] * 501)
    error, _ = refused(app, gif)
    assert error.status == 413 and "over 501 frames" in error.message


# Time ----------------------------------------------------------------------------------------


def test_an_upload_that_takes_too_long_to_check_is_a_413(app, monkeypatch):
    """Within every count, a decode still stops at IMAGE_TIME_LIMIT seconds of CPU time."""
    # Decoding these 24 megapixels alone takes about 0.1 s of CPU (a clean PNG is kept, not
    # re-encoded): five times the limit.
    monkeypatch.setitem(app.config, "IMAGE_TIME_LIMIT", 0.02)
    picture = PIL.Image.linear_gradient("L").resize((6000, 4000)).convert("RGB")
    out = io.BytesIO()
    picture.save(out, "PNG", compress_level=1)
    error, seconds = refused(app, out.getvalue())
    assert error.status == 413
    assert "the limit is 0.02 seconds" in error.message
    assert seconds < 2
