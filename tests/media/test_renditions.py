"""Resized copies of stored images: their widths, formats and orientation, how they are
served, and the srcset that cards and the post page give readers."""

from __future__ import annotations

import hashlib
import io
import os
import subprocess
import sys
import time
from datetime import timedelta
from types import SimpleNamespace

import PIL.Image
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog.authoring import store
from blog.extensions import db
from blog.media import renditions
from blog.media.images import store_image
from blog.models import Image, ImageRendition, utcnow
from tests.media.test_image_limits import progressive_jpeg

ORIENTATION = 0x0112
KINDS = {"JPEG": "jpg", "PNG": "png", "WEBP": "webp", "GIF": "gif"}


def halves(size: tuple[int, int] = (1000, 600), mode: str = "RGB") -> PIL.Image.Image:
    """A picture whose left half is red and right half blue: its orientation can be seen."""
    picture = PIL.Image.new("RGB", size, (230, 20, 20))
    picture.paste((20, 20, 230), (size[0] // 2, 0, size[0], size[1]))
    return picture.convert(mode) if mode != "RGB" else picture


def encoded(picture: PIL.Image.Image, kind: str, **options) -> bytes:
    """The picture saved in a format."""
    out = io.BytesIO()
    (picture.convert("P") if kind == "GIF" else picture).save(out, kind, **options)
    return out.getvalue()


def opened(data: bytes) -> PIL.Image.Image:
    """Bytes as Pillow reads them."""
    picture = PIL.Image.open(io.BytesIO(data))
    picture.load()
    return picture


def reddish(pixel) -> bool:
    """True for the red half's colour, after lossy coding."""
    red, _, blue = pixel[:3]
    return red > 150 and blue < 100


def stored(app, data: bytes) -> tuple[str, str, int]:
    """Store an upload; (its hash, its extension, its width)."""
    with app.app_context():
        image = store_image(data)
        db.session.commit()
        ext = {"image/jpeg": "jpg", "image/png": "png", "image/webp": "webp", "image/gif": "gif"}
        return image.sha256, ext[image.content_type], image.width


def illustrated_post(app, data: bytes, **fields) -> str:
    """A published post whose illustration is this upload; its slug."""
    with app.test_request_context():
        image = store_image(data)
        post = store.new_post(
            title=fields.pop("title", "Pictured"),
            body="Some text.",
            author=store.author_named("Ada Example"),
            topics=[store.topic_named("Databases")],
            published_at=utcnow() - timedelta(hours=1),
            image_alt="Two halves, red and blue",
            **fields,
        )
        post.image = image
        db.session.commit()
        return post.slug


def page(response) -> BeautifulSoup:
    """A response body as parsed HTML."""
    assert response.status_code == 200
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


def candidates(srcset: str) -> list[tuple[str, int]]:
    """A srcset's (address, width) pairs."""
    pairs = [item.strip().rsplit(" ", 1) for item in srcset.split(",")]
    return [(url, int(width.removesuffix("w"))) for url, width in pairs]


# Widths and formats --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("width", "widths"),
    [
        (4032, (480, 960, 1600)),
        (1601, (480, 960, 1600)),
        (1600, (480, 960)),
        (481, (480,)),
        (480, ()),
        (64, ()),
        (1, ()),
    ],
)
def test_copies_are_only_ever_smaller_than_the_original(width, widths):
    """Never upscaled: a width is made only when the original is wider."""
    assert renditions.widths_for(width) == widths


@pytest.mark.parametrize("kind", list(KINDS))
@pytest.mark.parametrize("fmt", ["own", "image/webp"])
def test_resize_makes_the_width_and_format_asked_for(kind, fmt):
    """Each format's copy has the asked width, the height in proportion, and the format."""
    content_type = {"JPEG": "image/jpeg", "PNG": "image/png", "WEBP": "image/webp"}.get(
        kind, "image/gif"
    )
    target = content_type if fmt == "own" else fmt
    data, height = renditions.resize(encoded(halves(), kind), 480, target)
    copy = opened(data)
    assert copy.size == (480, 288) and height == 288
    assert copy.format == renditions.FORMATS[target][0]
    assert reddish(copy.convert("RGB").getpixel((10, 144)))
    assert not reddish(copy.convert("RGB").getpixel((470, 144)))


def test_resize_keeps_transparency_and_every_frame_of_an_animation():
    """An animated, partly transparent picture stays animated (same timing), in both formats."""
    frames = [halves((800, 400), "RGBA") for _ in range(3)]
    for n, frame in enumerate(frames):
        frame.paste((0, 0, 0, 0), (0, 0, 100, 100))
        frame.paste((0, 200, 0, 255), (300, 100 * n, 500, 100 * n + 100))  # frames differ
    original = encoded(
        frames[0], "PNG", save_all=True, append_images=frames[1:], duration=70, loop=0
    )
    for content_type in ("image/png", "image/webp"):
        copy = opened(renditions.resize(original, 480, content_type)[0])
        assert copy.size == (480, 240) and copy.n_frames == 3, content_type
        assert copy.info["duration"] == 70
        assert copy.convert("RGBA").getpixel((5, 5))[3] == 0


def test_a_gif_copy_keeps_a_see_through_pixel_moving():
    """Each frame of this GIF has its own see-through square (disposal 2 clears the last one):
    the GIF copy shows the square moving as the original does. Pillow's writer had drawn each
    new frame over the last, so every square but the first stayed filled."""
    frames = []
    for n in range(60):
        frame = PIL.Image.new("P", (1000, 100), 0)
        frame.putpalette([30, 60, 90, 255, 255, 255])
        frame.paste(1, (n * 16, 20, n * 16 + 16, 80))
        frames.append(frame)
    original = encoded(
        frames[0],
        "GIF",
        save_all=True,
        append_images=frames[1:],
        duration=40,
        loop=0,
        disposal=2,
        transparency=1,
    )
    for content_type in ("image/gif", "image/webp"):
        copy = opened(renditions.resize(original, 480, content_type)[0])
        assert copy.n_frames == 60, content_type
        for n in range(60):
            copy.seek(n)
            alpha = copy.convert("RGBA").getchannel("A")
            assert alpha.getpixel((round((n * 16 + 8) * 0.48), 24)) == 0, (content_type, n)
            if n:
                assert alpha.getpixel((round((n * 16 - 8) * 0.48), 24)) == 255, (content_type, n)


# The tests marked one_store in this module run on SQLite only: they check what is decoded and
# drawn from bytes once read (orientation, sizes WebP cannot hold, scans counted before
# decoding). Storing, keeping and sharing copies between processes run on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize("kind", ["JPEG", "WEBP", "PNG"])
def test_exif_orientation_is_applied_before_resizing(app, client, kind):
    """A photo whose EXIF says "turn it a quarter" is stored upright and copied upright."""
    exif = PIL.Image.Exif()
    exif[ORIENTATION] = 6  # shown turned 90° clockwise: the stored left half becomes the top
    data = encoded(halves((1000, 600)), kind, exif=exif.tobytes())
    digest, ext, width = stored(app, data)
    assert width == 600
    with app.app_context():
        image = db.session.scalar(sa.select(Image).where(Image.sha256 == digest))
        assert (image.width, image.height) == (600, 1000)
        assert ORIENTATION not in opened(image.data).getexif()
    copy = client.get(f"/images/{digest}-480.{ext}")
    picture = opened(copy.data).convert("RGB")
    assert picture.size == (480, 800)
    assert reddish(picture.getpixel((240, 20))) and not reddish(picture.getpixel((240, 780)))
    # resize() itself turns a picture that still carries the tag, should one reach it.
    direct = opened(renditions.resize(data, 480, "image/webp")[0]).convert("RGB")
    assert direct.size == (480, 800) and reddish(direct.getpixel((240, 20)))


# Serving -------------------------------------------------------------------------------------


def test_a_copy_is_made_once_kept_and_served_for_good(app, client):
    """The first ask makes and keeps it; every ask gets the same bytes, cached for a year,
    with a strong ETag (the copy's own hash) that answers 304."""
    digest, _, _ = stored(app, encoded(halves((2000, 1000)), "JPEG", quality=90))
    url = f"/images/{digest}-960.webp"
    first = client.get(url)
    assert first.status_code == 200 and first.mimetype == "image/webp"
    assert opened(first.data).size == (960, 480)
    cache = first.headers["Cache-Control"]
    assert "immutable" in cache and "max-age=31536000" in cache and "public" in cache
    assert first.headers["ETag"] == f'"{hashlib.sha256(first.data).hexdigest()}"'
    second = client.get(url)
    assert second.data == first.data
    assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    with app.app_context():
        kept = db.session.scalars(sa.select(ImageRendition)).all()
        assert [(row.width, row.height, row.content_type) for row in kept] == [
            (960, 480, "image/webp")
        ]
        assert kept[0].byte_size == len(first.data)
        # The original is untouched: it is what exports write.
        original = db.session.scalar(sa.select(Image.data).where(Image.sha256 == digest))
        assert opened(original).size == (2000, 1000)


def test_a_copy_made_by_another_process_meanwhile_is_not_an_error(app, client):
    """Two workers making the same copy at once: the second store is dropped, both serve."""
    digest, _, _ = stored(app, encoded(halves((1000, 500)), "PNG"))
    with app.app_context():
        image_id = db.session.scalar(sa.select(Image.id).where(Image.sha256 == digest))
        copy = renditions.Copy(b"made elsewhere", "0" * 64, "image/png")
        renditions._keep(image_id, 480, 240, copy)
        renditions._keep(image_id, 480, 240, copy)
        assert db.session.scalar(sa.select(sa.func.count(ImageRendition.id))) == 1
    assert client.get(f"/images/{digest}-480.png").data == b"made elsewhere"


def test_copies_that_do_not_exist_are_404s(app, client):
    """Widths off the list, as wide as the original or wider, formats the image has no copy
    in, unknown hashes and odd spellings are all 404, and nothing is stored for them."""
    jpeg, _, _ = stored(app, encoded(halves((1000, 600)), "JPEG"))
    webp, _, _ = stored(app, encoded(halves((700, 300)), "WEBP"))
    for url in (
        f"/images/{jpeg}-1600.jpg",  # wider than the original: never upscaled
        f"/images/{jpeg}-1600.webp",
        f"/images/{jpeg}-500.jpg",  # not one of the widths
        f"/images/{jpeg}-0480.jpg",
        f"/images/{jpeg}-48000.jpg",
        f"/images/{jpeg}-480.png",  # neither WebP nor the original's format
        f"/images/{jpeg}-480.gif",
        f"/images/{jpeg}-480.svg",
        f"/images/{jpeg}-480",
        f"/images/{jpeg}--480.jpg",
        f"/images/{webp}-480.jpg",
        f"/images/{webp}-960.webp",
        f"/images/{'0' * 64}-480.webp",
        f"/images/{jpeg[:-1]}-480.webp",
    ):
        assert client.get(url).status_code == 404, url
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(ImageRendition.id))) == 0
    assert client.get(f"/images/{webp}-480.webp").status_code == 200


# Copies that cannot be made, or cost too much -----------------------------------------------


@pytest.mark.parametrize(
    ("height", "webp_widths"),
    [(16_393, (480, 960, 1600)), (16_394, (480, 960)), (24_980, (480, 960))],
)
def test_webp_copies_taller_than_webp_allows_are_not_offered(height, webp_widths):
    """WebP pictures are at most 16,383 px a side: a copy that would be taller is left out of
    the WebP srcset; the image's own format has no such limit."""
    image = SimpleNamespace(sha256="a" * 64, content_type="image/png", width=1601, height=height)
    copies = renditions.sources(image, f"/images/{'a' * 64}.png")
    assert [width for _, width in candidates(copies.webp_srcset)] == list(webp_widths)
    assert [width for _, width in candidates(copies.srcset)] == [480, 960, 1600, 1601]


@pytest.mark.one_store
def test_a_webp_copy_taller_than_webp_allows_is_a_quick_404(app, client):
    """1601×24980: its 1600 px WebP copy would be 24,964 px tall, which WebP cannot hold. Its
    address is a 404 at once (it was a 500, after two seconds and 700 MB, on every ask)."""
    picture = PIL.Image.new("L", (1601, 24_980), 90)
    digest, _, _ = stored(app, encoded(picture, "PNG"))
    started = time.perf_counter()
    assert client.get(f"/images/{digest}-1600.webp").status_code == 404
    assert time.perf_counter() - started < 2
    assert opened(client.get(f"/images/{digest}-480.webp").data).size == (480, 7489)
    with app.app_context():
        assert db.session.scalar(sa.select(ImageRendition.width)) == 480


def counting_resize(monkeypatch, log, busy: bool = False) -> None:
    """Make renditions.resize note each call in the file `log` (processes forked later too)
    and take a while longer, as a large picture would: half a second of waiting, or with
    `busy` a second of CPU time."""
    real = renditions.resize

    def resize(*args, **kwargs):
        with open(log, "a") as notes:
            notes.write("made\n")
        if busy:
            ends = time.process_time() + 1
            while time.process_time() < ends:
                pass
        else:
            time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(renditions, "resize", resize)


def made(log) -> int:
    """How many copies counting_resize saw being made."""
    return len(log.read_text().split()) if log.exists() else 0


def test_a_copy_that_takes_too_long_is_tried_once_then_readers_get_the_original(
    app, client, monkeypatch, tmp_path
):
    """Past IMAGE_TIME_LIMIT the copy is given up for good: its address sends readers to the
    original, and no later ask tries again."""
    digest, _, _ = stored(app, encoded(halves((2000, 1000)), "PNG"))
    monkeypatch.setitem(app.config, "IMAGE_TIME_LIMIT", 0.2)
    log = tmp_path / "made"
    counting_resize(monkeypatch, log, busy=True)
    # The limit is CPU time: count the test process's CPU, not the clock of a busy machine.
    started = time.process_time()
    first = client.get(f"/images/{digest}-1600.webp")
    assert time.process_time() - started < 2
    assert first.status_code == 307
    assert first.headers["Location"].endswith(f"/images/{digest}.png")
    again = client.get(f"/images/{digest}-1600.webp")
    assert again.status_code == 307 and made(log) == 1
    assert client.get(first.headers["Location"]).status_code == 200


@pytest.mark.one_store
def test_a_stored_jpeg_of_thousands_of_scans_is_not_decoded_for_a_copy(app, client):
    """An original stored before scans were counted: its copies are refused unread, and
    readers get the original, quickly."""
    data = progressive_jpeg((2048, 2048), 5000)
    digest = hashlib.sha256(data).hexdigest()
    with app.app_context():
        db.session.add(
            Image(
                sha256=digest,
                content_type="image/jpeg",
                data=data,
                width=2048,
                height=2048,
                byte_size=len(data),
            )
        )
        db.session.commit()
    started = time.perf_counter()
    response = client.get(f"/images/{digest}-960.webp")
    assert time.perf_counter() - started < 2
    assert response.status_code == 307
    assert response.headers["Location"].endswith(f"/images/{digest}.jpg")


# One request makes a copy --------------------------------------------------------------------


def test_while_another_process_makes_a_copy_a_request_gets_the_original(
    app, client, monkeypatch, tmp_path
):
    """The copy's lock is a file lock, so it holds across processes: while another process
    holds it, a request waits a little, then sends the reader to the original, uncached."""
    digest, _, _ = stored(app, encoded(halves((2000, 1000)), "JPEG"))
    log = tmp_path / "made"
    counting_resize(monkeypatch, log)
    monkeypatch.setattr(renditions, "WAIT_FOR_COPY", 0.3)
    with app.app_context():
        lock = renditions.lock_path(digest, 960, "image/webp")
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, sys; f = open(sys.argv[1], 'a'); fcntl.flock(f, fcntl.LOCK_EX);"
            " print('held', flush=True); sys.stdin.read()",
            str(lock),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline() == "held\n"
        response = client.get(f"/images/{digest}-960.webp")
        assert response.status_code == 307
        assert response.headers["Location"].endswith(f"/images/{digest}.jpg")
        assert "no-store" in response.headers["Cache-Control"]
        assert made(log) == 0
    finally:
        holder.communicate("")
    assert client.get(f"/images/{digest}-960.webp").status_code == 200
    assert made(log) == 1


def test_four_requests_at_once_in_four_processes_make_a_missing_copy_once(
    app, monkeypatch, tmp_path
):
    """Four processes ask for one uncached copy at the same moment: one makes it, the others
    wait for it and serve it."""
    digest, _, _ = stored(app, encoded(halves((2000, 1000)), "JPEG"))
    log = tmp_path / "made"
    counting_resize(monkeypatch, log)
    monkeypatch.setattr(renditions, "WAIT_FOR_COPY", 20)  # however busy the machine is
    go_read, go_write = os.pipe()
    children = []
    for _ in range(4):
        answer_read, answer_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child leaves through os._exit)
            status = 1
            try:
                os.close(go_write)
                os.close(answer_read)
                with app.app_context():
                    db.engine.dispose(close=False)  # the parent's connections stay its own
                os.read(go_read, 1)
                response = app.test_client().get(f"/images/{digest}-960.webp")
                os.write(answer_write, str(response.status_code).encode())
                status = 0
            finally:
                os._exit(status)
        os.close(answer_write)
        children.append((pid, answer_read))
    os.close(go_read)
    os.write(go_write, b"go!!")
    os.close(go_write)
    answers = []
    for pid, answer_read in children:
        answers.append(os.read(answer_read, 16).decode())
        os.close(answer_read)
        assert os.waitpid(pid, 0)[1] == 0
    assert answers == ["200"] * 4
    assert made(log) == 1


# What pages offer ---------------------------------------------------------------------------


def test_cards_and_the_post_page_offer_the_copies_with_srcset_and_sizes(app, client):
    """A large JPEG illustration: WebP copies in a <source>, JPEG copies and the original in
    the <img>'s srcset, each address serving an image of the width it claims."""
    slug = illustrated_post(app, encoded(halves((2000, 1000)), "JPEG"), featured=True)
    home = page(client.get("/"))
    post = page(client.get(f"/posts/{slug}"))
    for found in (home.select_one("picture:has(img.card-art)"), post.select_one("picture")):
        assert found is not None
        source, img = found.select_one("source"), found.select_one("img")
        assert source["type"] == "image/webp" and source["sizes"] == img["sizes"]
        webp = candidates(source["srcset"])
        own = candidates(img["srcset"])
        assert [width for _, width in webp] == [480, 960, 1600]
        assert [width for _, width in own] == [480, 960, 1600, 2000]
        assert own[-1][0] == img["src"]
        assert (img["width"], img["height"], img["alt"]) == (
            "2000",
            "1000",
            "Two halves, red and blue",
        )
        for url, width in webp + own:
            response = client.get(url)
            assert response.status_code == 200, url
            assert opened(response.data).width == width, url
        assert {client.get(url).mimetype for url, _ in webp} == {"image/webp"}
        assert {client.get(url).mimetype for url, _ in own} == {"image/jpeg"}


def test_small_and_webp_illustrations_need_no_picture_element(app, client):
    """An image no wider than the smallest copy keeps a plain <img>; a WebP one has its
    copies in the <img>'s own srcset, with no <source>."""
    small = illustrated_post(app, encoded(halves((480, 300)), "PNG"), title="Small")
    webp = illustrated_post(app, encoded(halves((1200, 600)), "WEBP"), title="Wide WebP")
    art = page(client.get(f"/posts/{small}")).select_one("img.post-art")
    assert not art.has_attr("srcset") and art.find_parent("picture") is None
    art = page(client.get(f"/posts/{webp}")).select_one("img.post-art")
    assert art.find_parent("picture") is None
    assert [width for _, width in candidates(art["srcset"])] == [480, 960, 1200]
