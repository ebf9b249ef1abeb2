"""Uploaded illustrations: what is accepted, what is stripped, how they are stored and served."""

from __future__ import annotations

import hashlib
import io
import os
import random
import zlib

import PIL.Image
import pytest
import sqlalchemy as sa
from PIL import ImageCms, PngImagePlugin

from blog.extensions import db
from blog.media.images import ImageError, image_url, store_image
from blog.models import Image, Post
from blog.web import pagecache
from tests.authoring.test_auth import editor_client, page
from tests.authoring.test_editor import (
    HX_EDITOR,
    create,
    current_form,
    field_error,
    new_post_form,
    stored,
)
from tests.conftest import count_queries

__all__ = ["editor_client"]

GPS_IFD = 0x8825
ORIENTATION = 0x0112


def picture_bytes(kind: str = "PNG", size: tuple[int, int] = (64, 40), **options) -> bytes:
    """A small real picture in the given format."""
    mode = "P" if kind == "GIF" else "RGB"
    image = PIL.Image.new(mode, size, color=7 if mode == "P" else (200, 80, 20))
    out = io.BytesIO()
    image.save(out, kind, **options)
    return out.getvalue()


def jpeg_with_gps(orientation: int = 1, size: tuple[int, int] = (64, 40)) -> bytes:
    """A JPEG that carries a camera make, a GPS position and an orientation in its EXIF."""
    exif = PIL.Image.Exif()
    exif[0x010F] = "Example Camera Co"
    exif[ORIENTATION] = orientation
    exif.get_ifd(GPS_IFD).update({1: "N", 2: (52.0, 22.0, 1.0)})
    return picture_bytes("JPEG", size, exif=exif.tobytes(), comment=b"shot at home")


def noise_png(size: tuple[int, int]) -> bytes:
    """A PNG of random pixels: it cannot be compressed, so its size is predictable."""
    image = PIL.Image.frombytes("RGB", size, os.urandom(size[0] * size[1] * 3))
    out = io.BytesIO()
    image.save(out, "PNG", compress_level=1)
    return out.getvalue()


def noise_picture(kind: str, mode: str = "RGB", frames: int = 1, seed: int = 6, **options) -> bytes:
    """A small picture of random (but repeatable) pixels: re-encoding it changes its bytes."""
    rng = random.Random(seed)
    pictures = [
        PIL.Image.frombytes("RGB", (48, 32), rng.randbytes(48 * 32 * 3)).convert(mode)
        for _ in range(frames)
    ]
    out = io.BytesIO()
    if frames > 1:
        options |= {"save_all": True, "append_images": pictures[1:]}
    pictures[0].save(out, kind, **options)
    return out.getvalue()


def with_segment(jpeg: bytes, marker: int, payload: bytes) -> bytes:
    """The JPEG with one more marker segment right after its start-of-image marker."""
    segment = bytes([0xFF, marker]) + (len(payload) + 2).to_bytes(2, "big") + payload
    return jpeg[:2] + segment + jpeg[2:]


def with_chunk(webp: bytes, fourcc: bytes, payload: bytes) -> bytes:
    """The WebP with one more chunk at its end, its RIFF size updated to match."""
    chunks = webp[12:] + fourcc + len(payload).to_bytes(4, "little") + payload
    chunks += b"\0" * (len(payload) % 2)
    return b"RIFF" + (len(chunks) + 4).to_bytes(4, "little") + b"WEBP" + chunks


def with_png_chunk(png: bytes, kind: bytes, payload: bytes) -> bytes:
    """The PNG with one more chunk (its CRC right) just before its IEND chunk."""
    chunk = len(payload).to_bytes(4, "big") + kind + payload
    chunk += zlib.crc32(kind + payload).to_bytes(4, "big")
    return png[:-12] + chunk + png[-12:]


def reopened(data: bytes) -> PIL.Image.Image:
    """The stored bytes as Pillow sees them."""
    image = PIL.Image.open(io.BytesIO(data))
    image.load()
    return image


def upload(client, post_id: int | None = None, data: bytes = b"", name: str = "art.png", **fields):
    """Send the editor form with a file attached (new post, or an edit of `post_id`)."""
    if post_id is None:
        form = new_post_form(client, **fields)
        url = "/editor/posts/new"
    else:
        form = current_form(client, post_id) | fields
        url = f"/editor/posts/{post_id}"
    form["image"] = (io.BytesIO(data), name)
    return client.post(url, data=form, content_type="multipart/form-data")


# What store_image accepts ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "content_type"),
    [("PNG", "image/png"), ("JPEG", "image/jpeg"), ("WEBP", "image/webp"), ("GIF", "image/gif")],
)
def test_real_images_of_the_four_formats_are_stored(app, kind, content_type):
    """PNG, JPEG, WebP and GIF go in with their type, size and a hash of the stored bytes."""
    with app.app_context():
        image = store_image(picture_bytes(kind, (120, 45)))
        db.session.commit()
        assert image.content_type == content_type
        assert (image.width, image.height) == (120, 45)
        assert image.byte_size == len(image.data)
        assert image.sha256 == hashlib.sha256(image.data).hexdigest()
        assert reopened(image.data).format == kind


def test_the_same_picture_is_stored_once(app):
    """Uploading identical bytes twice returns the same row."""
    data = picture_bytes("PNG")
    with app.app_context():
        first = store_image(data)
        second = store_image(data)
        db.session.commit()
        assert first is second
        assert db.session.scalar(sa.select(sa.func.count(Image.id))) == 1


def test_store_image_does_not_commit(app):
    """The caller decides when the image is saved."""
    with app.app_context():
        store_image(picture_bytes("PNG"))
        db.session.rollback()
        assert db.session.scalar(sa.select(sa.func.count(Image.id))) == 0


SPOOFS = {
    "php": b"<?php system($_GET['c']); ?>\n",
    "html": b"<!doctype html><script>alert(document.cookie)</script>",
    "svg": b'<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"></svg>',
    "png-magic-then-php": b"\x89PNG\r\n\x1a\n<?php echo 1; ?>",
    "empty-looking": b"\x00" * 64,
}


# The tests marked one_store in this module run on SQLite only: they check what store_image
# makes of the bytes it is given (refusals before anything is written, metadata stripped by
# decoding and re-encoding). Storing, finding and serving images run on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize("name", SPOOFS)
def test_files_that_only_claim_to_be_images_are_refused(app, name):
    """What a file is named or starts with does not matter: Pillow must decode it."""
    with app.app_context(), pytest.raises(ImageError) as refused:
        store_image(SPOOFS[name])
    assert refused.value.status == 400
    assert "not a PNG, JPEG, WebP or GIF" in refused.value.message
    assert isinstance(refused.value, ValueError)


@pytest.mark.one_store
def test_truncated_image_is_refused(app):
    """A real PNG cut short fails the full decode."""
    with app.app_context(), pytest.raises(ImageError) as refused:
        store_image(noise_png((40, 40))[:-200])
    assert refused.value.status == 400


@pytest.mark.one_store
@pytest.mark.parametrize("kind", ["BMP", "TIFF", "ICO"])
def test_other_real_formats_are_refused(app, kind):
    """Only the four web formats are accepted, even when the file is a real image."""
    with app.app_context(), pytest.raises(ImageError) as refused:
        store_image(picture_bytes(kind, (32, 32)))
    assert refused.value.status == 400


@pytest.mark.one_store
def test_empty_file_is_refused(app):
    """An empty upload says so."""
    with app.app_context(), pytest.raises(ImageError, match="empty"):
        store_image(b"")


@pytest.mark.one_store
def test_a_polyglot_keeps_only_its_pixels(app):
    """A real PNG with a script glued to its end is stored without the script."""
    with app.app_context():
        image = store_image(picture_bytes("PNG") + b"<?php system('id'); ?>")
        assert b"<?php" not in image.data


@pytest.mark.one_store
def test_files_over_the_limit_are_413s(app):
    """Anything over MAX_IMAGE_BYTES (5 MB by default) is refused before decoding."""
    assert app.config["MAX_IMAGE_BYTES"] == 5 * 1024 * 1024
    assert app.config["MAX_CONTENT_LENGTH"] > app.config["MAX_IMAGE_BYTES"]
    with app.app_context(), pytest.raises(ImageError) as refused:
        store_image(b"\x89PNG\r\n\x1a\n" + bytes(5 * 1024 * 1024))
    assert refused.value.status == 413
    # Just over: both in bytes, since both would read "5 MB".
    assert refused.value.message == "This image is 5,242,888 bytes; the limit is 5,242,880 bytes."
    with app.app_context(), pytest.raises(ImageError) as refused:
        store_image(bytes(int(14.2 * 1024 * 1024)))
    assert refused.value.message == "This image is 14.2 MB; the limit is 5 MB."


@pytest.mark.one_store
def test_too_many_pixels_is_a_413(app):
    """A small file that decodes to a huge canvas is refused without decoding it."""
    big = PIL.Image.new("1", (8000, 6000))
    out = io.BytesIO()
    big.save(out, "PNG")
    with app.app_context(), pytest.raises(ImageError) as refused:
        store_image(out.getvalue())
    assert refused.value.status == 413
    assert "megapixels" in refused.value.message


# Metadata ----------------------------------------------------------------------------------------


@pytest.mark.one_store
def test_jpeg_loses_exif_gps_and_comments(app):
    """Camera, position and comments are gone; the pixels stay."""
    original = jpeg_with_gps()
    assert b"Example Camera Co" in original and b"shot at home" in original
    with app.app_context():
        image = store_image(original)
        stored_bytes = image.data
    clean = reopened(stored_bytes)
    assert not clean.getexif()
    assert "comment" not in clean.info and "exif" not in clean.info
    assert b"Example Camera Co" not in stored_bytes and b"shot at home" not in stored_bytes
    assert clean.size == (64, 40)


@pytest.mark.one_store
def test_jpeg_orientation_is_applied_before_it_is_dropped(app):
    """A photo marked "rotate 90°" is stored upright, with its true width and height."""
    with app.app_context():
        image = store_image(jpeg_with_gps(orientation=6, size=(64, 40)))
        assert (image.width, image.height) == (40, 64)
        clean = reopened(image.data)
    assert clean.size == (40, 64)
    assert not clean.getexif()


@pytest.mark.one_store
def test_png_loses_text_chunks(app):
    """PNG text chunks (authors, software, anything) are not kept."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Someone Private")
    info.add_itxt("Comment", "secret note")
    with app.app_context():
        image = store_image(picture_bytes("PNG", pnginfo=info))
        stored_bytes = image.data
    assert b"Someone Private" not in stored_bytes and b"secret note" not in stored_bytes
    assert not reopened(stored_bytes).text


@pytest.mark.one_store
def test_webp_loses_exif(app):
    """WebP EXIF is dropped too."""
    exif = PIL.Image.Exif()
    exif[0x010F] = "Example Camera Co"
    with app.app_context():
        image = store_image(picture_bytes("WEBP", exif=exif.tobytes()))
        stored_bytes = image.data
    assert b"Example Camera Co" not in stored_bytes
    assert not reopened(stored_bytes).getexif()


SRGB = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
CLEAN_UPLOADS = {
    "baseline JPEG": ("JPEG", "RGB", 1, {}),
    "progressive JPEG": ("JPEG", "RGB", 1, {"progressive": True}),
    "JPEG with restart markers": ("JPEG", "RGB", 1, {"restart_marker_blocks": 1}),
    "JPEG with a colour profile": ("JPEG", "RGB", 1, {"icc_profile": SRGB}),
    "greyscale JPEG": ("JPEG", "L", 1, {}),
    "CMYK JPEG (Adobe segment)": ("JPEG", "CMYK", 1, {}),
    "lossy WebP": ("WEBP", "RGB", 1, {}),
    "lossless WebP": ("WEBP", "RGB", 1, {"lossless": True}),
    "WebP with alpha": ("WEBP", "RGBA", 1, {}),
    "WebP with a colour profile": ("WEBP", "RGB", 1, {"icc_profile": SRGB}),
    "animated WebP": ("WEBP", "RGB", 3, {"duration": 100}),
    # PNGs compressed otherwise than a re-encode would: keeping them is what keeps their bytes.
    "PNG": ("PNG", "RGB", 1, {"compress_level": 1}),
    "PNG with alpha": ("PNG", "RGBA", 1, {"compress_level": 1}),
    "palette PNG": ("PNG", "P", 1, {"compress_level": 1}),
    "greyscale PNG": ("PNG", "L", 1, {"compress_level": 9}),
    "PNG with a colour profile": ("PNG", "RGB", 1, {"icc_profile": SRGB, "compress_level": 1}),
    "PNG with its pixel size": ("PNG", "RGB", 1, {"dpi": (144, 144)}),
}


@pytest.mark.one_store
@pytest.mark.parametrize("name", CLEAN_UPLOADS)
def test_clean_jpeg_png_and_webp_are_kept_byte_for_byte(app, name):
    """Nothing to strip: the upload is stored as sent, so it exports and imports as itself."""
    kind, mode, frames, options = CLEAN_UPLOADS[name]
    original = noise_picture(kind, mode, frames, **options)
    with app.app_context():
        image = store_image(original)
        assert image.data == original
        assert (image.width, image.height) == (48, 32)
        assert image.sha256 == hashlib.sha256(original).hexdigest()


XMP = b"http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>secret: the author's home</x:xmpmeta>"
WEBP_EXIF = PIL.Image.Exif()
WEBP_EXIF[0x010F] = "secret camera"
NOT_CLEAN = {
    "JPEG with EXIF and a comment": lambda: jpeg_with_gps(size=(48, 32)),
    "JPEG with a comment": lambda: noise_picture("JPEG", comment=b"secret note"),
    "JPEG with bytes after its end": lambda: noise_picture("JPEG") + b"<?php secret(); ?>",
    "JPEG with XMP": lambda: with_segment(noise_picture("JPEG"), 0xE1, XMP),
    "JPEG with IPTC": lambda: with_segment(noise_picture("JPEG"), 0xED, b"Photoshop 3.0\0secret"),
    "JPEG with a JFIF thumbnail": lambda: with_segment(
        noise_picture("JPEG"), 0xE0, b"JFIF\0\1\1\0\0\1\0\1\2\2" + b"secret thumb"
    ),
    "JPEG with a fill byte before a marker": lambda: b"\xff\xd8\xff" + noise_picture("JPEG")[2:],
    "WebP with EXIF": lambda: noise_picture("WEBP", exif=WEBP_EXIF.tobytes()),
    "WebP with XMP": lambda: noise_picture("WEBP", xmp=XMP),
    "animated WebP with EXIF": lambda: noise_picture("WEBP", frames=2, exif=WEBP_EXIF.tobytes()),
    "WebP with an unknown chunk": lambda: with_chunk(noise_picture("WEBP"), b"NOTE", b"secret"),
    "WebP with bytes after its end": lambda: noise_picture("WEBP") + b"secret",
    "PNG with a time": lambda: with_png_chunk(
        noise_picture("PNG"), b"tIME", b"\x07\xea\x0c\x06\x05\x06\x07"
    ),
    "PNG with a private chunk": lambda: with_png_chunk(noise_picture("PNG"), b"prVt", b"secret"),
    "PNG with EXIF": lambda: noise_picture("PNG", exif=WEBP_EXIF.tobytes()),
    "PNG with text": lambda: noise_picture("PNG", pnginfo=secret_text()),
    "PNG with bytes after its end": lambda: noise_picture("PNG") + b"secret",
}


def secret_text() -> PngImagePlugin.PngInfo:
    """A PNG text chunk holding a secret."""
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "secret")
    return info


@pytest.mark.one_store
@pytest.mark.parametrize("name", NOT_CLEAN)
def test_metadata_or_trailing_bytes_mean_a_re_encoded_jpeg_png_or_webp(app, name):
    """Anything beyond the pixels is dropped by re-encoding, and the result is then kept as is."""
    original = NOT_CLEAN[name]()
    with app.app_context():
        image = store_image(original)
        db.session.commit()
        stored_bytes = image.data
        assert stored_bytes != original
        assert b"secret" not in stored_bytes and b"Example Camera Co" not in stored_bytes
        assert store_image(stored_bytes) is image
    clean = reopened(stored_bytes)
    assert clean.format == reopened(original).format
    assert clean.size == (48, 32)
    assert not clean.getexif() and "xmp" not in clean.info and "comment" not in clean.info


@pytest.mark.one_store
def test_gif_loses_comments_and_keeps_its_frames(app):
    """An animated GIF keeps every frame; its comment goes."""
    colours = [(255, 0, 0), (0, 255, 0), (0, 0, 255)]
    frames = [PIL.Image.new("RGB", (20, 20), color=c) for c in colours]
    out = io.BytesIO()
    frames[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=frames[1:],
        comment=b"private",
        duration=120,
        loop=0,
    )
    with app.app_context():
        image = store_image(out.getvalue())
        stored_bytes = image.data
    clean = PIL.Image.open(io.BytesIO(stored_bytes))
    assert clean.n_frames == 3
    assert (clean.info["duration"], clean.info["loop"]) == (120, 0)
    assert b"private" not in stored_bytes and "comment" not in clean.info


def looks(data: bytes) -> list[bytes]:
    """What a viewer sees in each frame: its RGBA pixels, fully transparent ones alike."""
    seen = []
    with PIL.Image.open(io.BytesIO(data)) as picture:
        for index in range(picture.n_frames):
            picture.seek(index)
            rgba = picture.convert("RGBA")
            clear = rgba.getchannel("A").point(lambda alpha: 255 if alpha == 0 else 0, "1")
            rgba.paste((0, 0, 0, 0), mask=clear)
            seen.append(rgba.tobytes())
    return seen


def moving_hole_gif(frames: int = 500) -> bytes:
    """An animation of `frames` frames on a dark canvas, each frame with one pixel (a different
    one each time) transparent, each frame cleared before the next (disposal 2)."""
    pictures = []
    for n in range(frames):
        picture = PIL.Image.new("P", (32, 16), 0)
        picture.putpalette([30, 60, 90, 255, 255, 255])
        picture.putpixel((n % 32, n // 32 % 16), 1)
        pictures.append(picture)
    out = io.BytesIO()
    pictures[0].save(
        out,
        "GIF",
        save_all=True,
        append_images=pictures[1:],
        duration=40,
        loop=0,
        disposal=2,
        transparency=1,
    )
    return out.getvalue()


@pytest.mark.one_store
def test_a_gif_whose_frames_differ_by_one_pixel_keeps_every_frame(app):
    """500 frames, each with another pixel see-through: all 500 are stored, each as it was
    uploaded (a re-encode composited them and kept one picture)."""
    original = moving_hole_gif()
    seen = looks(original)
    assert len(set(seen)) == 500
    with app.app_context():
        image = store_image(original)
        assert looks(image.data) == seen
        assert image.data == original  # nothing to strip: kept byte for byte


def gif_with_extras(gif: bytes) -> bytes:
    """The GIF with a comment, XMP and plain-text extensions before its first image, and bytes
    after its trailer."""
    comment = b"\x21\xfe\x0bsecret note\x00"
    xmp = b"\x21\xff\x0bXMP DataXMP" + b"\x0e<secret:home/>" + b"\x00"
    text = b"\x21\x01\x0c" + bytes(12) + b"\x06secret\x00"
    after = 13 + (3 << ((gif[10] & 7) + 1) if gif[10] & 0x80 else 0)
    return gif[:after] + comment + xmp + text + gif[after:] + b"<?php secret(); ?>"


@pytest.mark.one_store
def test_a_gif_loses_its_extras_and_keeps_its_frames_byte_for_byte(app):
    """Comments, application data other than the loop count, plain text and trailing bytes are
    cut out; every image block is stored as uploaded."""
    original = moving_hole_gif(40)
    with app.app_context():
        image = store_image(gif_with_extras(original))
        assert image.data == original
        assert b"secret" not in image.data


# Serving -----------------------------------------------------------------------------------------


def test_images_are_served_by_hash_with_immutable_caching(app, client):
    """The URL is the content hash; the response may be cached for a year."""
    with app.test_request_context():
        image = store_image(picture_bytes("PNG"))
        db.session.commit()
        url, digest, data = image_url(image), image.sha256, image.data
    assert url == f"/images/{digest}.png"
    response = client.get(url)
    assert response.status_code == 200
    assert response.mimetype == "image/png"
    assert response.data == data
    cache = response.headers["Cache-Control"]
    assert "immutable" in cache and "max-age=31536000" in cache and "public" in cache
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    again = client.get(url, headers={"If-None-Match": response.headers["ETag"]})
    assert again.status_code == 304


def test_unknown_or_mismatched_image_addresses_are_404s(app, client):
    """Wrong hash, wrong extension or a malformed name: nothing is served."""
    with app.app_context():
        image = store_image(picture_bytes("PNG"))
        db.session.commit()
        digest = image.sha256
    for url in (
        f"/images/{'0' * 64}.png",
        f"/images/{digest}.jpg",
        f"/images/{digest}.svg",
        f"/images/{digest[:-1]}.png",
        "/images/../../etc/passwd",
    ):
        assert client.get(url).status_code == 404, url


# The editor's upload -----------------------------------------------------------------------------


def test_illustrated_post_shows_its_image_with_size_and_alt(app, editor_client):
    """Cards and the post page use the upload, with its width, height and alt text."""
    response = upload(
        editor_client,
        data=picture_bytes("JPEG", (800, 450)),
        name="cover.jpg",
        title="With a picture",
        status="published",
        image_alt="A pale orange rectangle",
    )
    assert response.status_code == 303
    post_id = int(response.headers["Location"].rsplit("/", 1)[1])
    post = stored(app, post_id)
    assert post.image is not None and post.image_alt == "A pale orange rectangle"
    src = f"/images/{post.image.sha256}.jpg"
    card = page(editor_client.get("/")).select_one(f'#post-list img[src="{src}"]')
    assert card is not None
    assert (card["width"], card["height"], card["alt"]) == ("800", "450", "A pale orange rectangle")
    art = page(editor_client.get("/posts/with-a-picture")).select_one("img.post-art")
    assert (art["src"], art["width"], art["height"]) == (src, "800", "450")
    assert editor_client.get(src).status_code == 200


def test_post_without_an_upload_shows_its_generated_illustration(app, editor_client):
    """No upload: the blueprint drawing, as before."""
    create(editor_client, title="Plain post", status="published")
    art = page(editor_client.get("/posts/plain-post")).select_one("img.post-art")
    assert art["src"].startswith("/illustrations/plain-post.svg?v=")
    assert art["alt"]


@pytest.mark.parametrize("name", ["shell.png", "page.png", "art.gif"])
def test_spoofed_upload_comes_back_with_a_message_and_the_text(app, editor_client, name):
    """A script renamed .png: 422, the reason beside the image field, nothing else lost."""
    payload = SPOOFS["php"] if name == "shell.png" else SPOOFS["html"]
    response = upload(editor_client, data=payload, name=name, body="My precious words.")
    assert response.status_code == 422
    assert "not a PNG, JPEG, WebP or GIF" in field_error(response, "image")
    assert page(response).select_one("#body").text.strip() == "My precious words."
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Image.id))) == 0
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0


def test_oversize_upload_is_a_413_beside_the_field(app, editor_client, monkeypatch):
    """An image over the limit: 413, a clear message by the field, the form as typed."""
    monkeypatch.setitem(app.config, "MAX_IMAGE_BYTES", 100_000)
    data = noise_png((300, 300))
    response = upload(editor_client, data=data, body="Keep me.")
    assert response.status_code == 413
    size = f"{len(data) / 1024 / 1024:.1f} MB"
    assert size != "0.1 MB"
    assert field_error(response, "image") == f"This image is {size}; the limit is 0.1 MB."
    assert page(response).select_one("#body").text.strip() == "Keep me."


def test_request_over_the_size_limit_is_a_clear_413(app, editor_client, monkeypatch):
    """A request larger than the server accepts at all: a 413 page, or an alert for htmx."""
    monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 50_000)
    form = new_post_form(editor_client)
    form["image"] = (io.BytesIO(noise_png((150, 150))), "big.png")
    response = editor_client.post("/editor/posts/new", data=form)
    assert response.status_code == 413
    sent = f"{response.request.content_length / 1024 / 1024:.1f} MB"
    assert f"That upload is too large ({sent} in all): images may be at most 5 MB" in page(
        response
    ).get_text(" ")
    form["image"] = (io.BytesIO(noise_png((150, 150))), "big.png")
    response = editor_client.post("/editor/posts/new", data=form, headers=HX_EDITOR)
    assert response.status_code == 413
    assert response.headers["HX-Retarget"] == "#editor-alert"
    assert "too large" in response.get_data(as_text=True)


def test_alt_text_is_required_with_an_image_and_the_upload_is_kept(app, editor_client):
    """No alt text: 422 beside the alt field; the upload waits in the form for the next save."""
    response = upload(editor_client, data=picture_bytes("PNG"), title="Needs alt")
    assert response.status_code == 422
    assert field_error(response, "image_alt") == "Describe the image for readers who cannot see it."
    soup = page(response)
    kept = soup.select_one('input[name="kept_image"]')["value"]
    assert len(kept) == 64
    assert soup.select_one(".image-current img")["src"] == f"/images/{kept}.png"
    form = new_post_form(editor_client, title="Needs alt", image_alt="A small orange block")
    form["kept_image"] = kept
    again = editor_client.post("/editor/posts/new", data=form)
    assert again.status_code == 303
    post = stored(app, int(again.headers["Location"].rsplit("/", 1)[1]))
    assert post.image.sha256 == kept


def test_alt_text_is_required_for_an_image_already_on_the_post(app, editor_client):
    """Clearing the alt text of an illustrated post is refused too."""
    response = upload(editor_client, data=picture_bytes("PNG"), image_alt="Orange")
    post_id = int(response.headers["Location"].rsplit("/", 1)[1])
    edited = editor_client.post(
        f"/editor/posts/{post_id}", data=current_form(editor_client, post_id) | {"image_alt": ""}
    )
    assert edited.status_code == 422
    assert "Describe the image" in field_error(edited, "image_alt")


def test_removing_the_image_brings_back_the_drawing(app, editor_client):
    """Ticking "remove" detaches the upload and clears its alt text."""
    response = upload(
        editor_client, data=picture_bytes("PNG"), image_alt="Orange", status="published"
    )
    post_id = int(response.headers["Location"].rsplit("/", 1)[1])
    form = current_form(editor_client, post_id) | {"remove_image": "y"}
    assert editor_client.post(f"/editor/posts/{post_id}", data=form).status_code == 303
    post = stored(app, post_id)
    assert post.image is None and post.image_alt is None


def test_replacing_an_image_with_htmx_shows_the_new_one(app, editor_client):
    """An htmx save with a new file answers with the editor showing that file."""
    first = upload(editor_client, data=picture_bytes("PNG"), image_alt="First")
    post_id = int(first.headers["Location"].rsplit("/", 1)[1])
    form = current_form(editor_client, post_id)
    form["image"] = (io.BytesIO(picture_bytes("GIF", (30, 30))), "second.gif")
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=form, headers=HX_EDITOR, content_type="multipart/form-data"
    )
    assert response.status_code == 200
    img = page(response).select_one(".image-current img")
    assert img["src"].endswith(".gif") and (img["width"], img["height"]) == ("30", "30")


def test_cards_with_images_cost_no_extra_queries(app, client, posts):
    """The listing loads images with the cards: the same number of queries either way."""
    posts.create(6)
    with count_queries(app) as plain:
        assert client.get("/").status_code == 200
    with app.app_context():
        for post in db.session.scalars(sa.select(Post)):
            post.image = store_image(picture_bytes("PNG", (10 + post.id, 10)))
            post.image_alt = "Block"
        db.session.commit()
    pagecache.clear()  # render afresh both times, not once from a cached page's stale state
    with count_queries(app) as illustrated:
        html = client.get("/").get_data(as_text=True)
    assert html.count("/images/") >= 6
    assert len(illustrated) == len(plain)


def test_image_bytes_are_not_loaded_for_pages(app, client, posts):
    """Listing pages read image sizes, never the image bytes."""
    (slug,) = posts.create(1)
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.image = store_image(picture_bytes("PNG"))
        post.image_alt = "Block"
        db.session.commit()
    with count_queries(app) as statements:
        client.get("/")
        client.get(f"/posts/{slug}")
    assert not any("images.data" in statement for statement in statements)


def test_a_save_that_conflicts_keeps_the_image_it_brought(app, editor_client):
    """A stale tab uploads a picture and rewrites the summary Grace rewrote: the 409 page
    still shows that picture in the form, so saving again with a choice carries it."""
    from tests.authoring.test_auth import log_in_as, make_editor
    from tests.authoring.test_editor import save

    post_id = create(editor_client, title="Illustrated later")
    stale = current_form(editor_client, post_id)
    other = app.test_client()
    log_in_as(other, make_editor(app, "grace@example.com", name="Grace"))
    assert save(other, post_id, summary="Grace got there first.").status_code == 303

    picture = picture_bytes("PNG", (80, 50))
    stale |= {"image": (io.BytesIO(picture), "mine.png"), "image_alt": "A small test card"}
    stale["summary"] = "Mine came second."
    response = editor_client.post(
        f"/editor/posts/{post_id}", data=stale, content_type="multipart/form-data"
    )
    assert response.status_code == 409
    soup = page(response)
    shown = soup.select_one(".image-current img")
    with app.test_request_context():
        image = db.session.scalar(sa.select(Image).where(Image.width == 80))
        assert shown is not None and shown["src"] == image_url(image)
        assert soup.select_one("#kept_image")["value"] == image.sha256
    assert stored(app, post_id).image is None  # nothing saved over Grace's version

    again = {k: v for k, v in stale.items() if k != "image"}
    again["lock_version"] = soup.select_one("#lock_version")["value"]
    again["merge_base"] = soup.select_one("#merge_base")["value"]
    again["kept_image"] = soup.select_one("#kept_image")["value"]
    again[soup.select_one(".overlap input[value=theirs]")["name"]] = "theirs"
    assert editor_client.post(f"/editor/posts/{post_id}", data=again).status_code == 303
    assert stored(app, post_id).image.width == 80
    assert stored(app, post_id).summary == "Grace got there first."
