"""PNG link previews: the drawing at 1200×630, the logo, and what pages point at."""

from __future__ import annotations

import io
import json
import re

import PIL.Image
import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog.extensions import db
from blog.media import previews
from blog.models import Post
from tests.reading.test_feeds import give_image, png

SITE = "http://127.0.0.1:5000"
YEAR = "public, max-age=31536000, immutable"


@pytest.fixture
def kept(app, tmp_path, monkeypatch):
    """Previews kept in a folder of the test's own; returns it."""
    monkeypatch.setattr(app, "instance_path", str(tmp_path))
    return tmp_path / "previews"


def page_images(client, url: str) -> list[str]:
    """Every preview image a page names: OpenGraph, Twitter and JSON-LD (image and logo)."""
    response = client.get(url)
    assert response.status_code == 200, url
    page = BeautifulSoup(response.get_data(as_text=True), "lxml")
    found = [
        tag["content"]
        for tag in page.find_all("meta")
        if tag.get("property") == "og:image" or tag.get("name") == "twitter:image"
    ]
    for script in page.select('script[type="application/ld+json"]'):
        text = script.string or ""
        found += re.findall(r'"url":"([^"]+\.(?:png|svg|jpg|gif|webp)[^"]*)"', text)
    return found


def picture_of(client, url: str) -> PIL.Image.Image:
    """Fetch an image and read its header with Pillow."""
    response = client.get(url.removeprefix(SITE))
    assert response.status_code == 200, url
    return PIL.Image.open(io.BytesIO(response.get_data()))


def test_a_post_previews_as_a_1200_by_630_png(app, client, posts, kept):
    """og:image, twitter:image and the JSON-LD image are one PNG of 1200×630 with the
    drawing's alt text; the page says its size and type."""
    [slug] = posts.create(1, title="p99 fell from 800 ms to 120 ms")
    response = client.get(f"/posts/{slug}")
    page = BeautifulSoup(response.get_data(as_text=True), "lxml")

    def meta(key: str) -> str:
        tag = page.find("meta", attrs={"property": key}) or page.find("meta", attrs={"name": key})
        return tag["content"]

    url = meta("og:image")
    assert re.fullmatch(rf"{SITE}/illustrations/{slug}\.png\?v=[0-9a-f]{{16}}", url)
    assert meta("twitter:image") == url
    assert (meta("og:image:width"), meta("og:image:height")) == ("1200", "630")
    assert meta("og:image:type") == "image/png"
    alt = page.select_one(".post-art")["alt"]
    assert meta("og:image:alt") == meta("twitter:image:alt") == alt
    [data] = [json.loads(s.string) for s in page.select('script[type="application/ld+json"]')]
    assert data["image"] == {
        "@type": "ImageObject",
        "url": url,
        "width": 1200,
        "height": 630,
        "caption": alt,
    }
    picture = picture_of(client, url)
    assert (picture.format, picture.size) == ("PNG", (1200, 630))


def test_the_png_is_rendered_once_and_kept(app, client, posts, kept, monkeypatch):
    """The first request renders and keeps the file; later ones, in any process, read it.
    A changed drawing replaces the post's old file."""
    [slug] = posts.create(1, title="Failover across three regions")
    url = page_images(client, f"/posts/{slug}")[0].removeprefix(SITE)
    first = client.get(url).get_data()
    [file] = (kept / slug).glob("*.png")
    assert file.read_bytes() == first

    def refuse(*args, **kwargs):
        raise AssertionError("rendered twice")

    monkeypatch.setattr(previews, "render_png", refuse)
    assert client.get(url).get_data() == first
    monkeypatch.undo()
    monkeypatch.setattr(app, "instance_path", str(kept.parent))
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.title = "Failover across five regions"
        db.session.commit()
    new = page_images(client, f"/posts/{slug}")[0].removeprefix(SITE)
    assert new != url and client.get(new).status_code == 200
    assert [path.name for path in (kept / slug).glob("*.png")] == [f"{new[-16:]}.png"]


def test_the_png_is_immutable_at_its_hash_with_an_etag(client, posts, kept):
    """Its current ?v= is kept a year and answers 304 to its ETag; an old v is sent on; a
    slug no live post has, or a malformed one, is 404 (no file is made for it)."""
    [slug] = posts.create(1)
    url = page_images(client, f"/posts/{slug}")[0].removeprefix(SITE)
    response = client.get(url)
    assert response.mimetype == "image/png"
    assert response.headers["Cache-Control"] == YEAR
    version = url.rpartition("=")[2]
    assert response.headers["ETag"] == f'"{version}"'
    again = client.get(url, headers={"If-None-Match": f'"{version}"'})
    assert again.status_code == 304 and again.get_data() == b""
    moved = client.get(f"/illustrations/{slug}.png?v=0123456789abcdef")
    assert moved.status_code == 302 and moved.headers["Location"].endswith(url)
    assert "immutable" not in moved.headers["Cache-Control"]
    for path in ("/illustrations/no-such-post.png", "/illustrations/UPPER.png"):
        assert client.get(path).status_code == 404
    assert not (kept / "no-such-post").exists()


def test_the_logo_is_a_square_png_in_the_publisher(client, posts, kept):
    """JSON-LD's publisher has a logo: an ImageObject naming a 512×512 PNG of the favicon,
    on the home page and on posts alike."""
    [slug] = posts.create(1)
    logos = []
    for url in ("/", f"/posts/{slug}"):
        page = BeautifulSoup(client.get(url).get_data(as_text=True), "lxml")
        [data] = [json.loads(s.string) for s in page.select('script[type="application/ld+json"]')]
        logos.append(data["publisher"]["logo"])
    assert logos[0] == logos[1]
    logo = logos[0]
    assert logo["@type"] == "ImageObject" and (logo["width"], logo["height"]) == (512, 512)
    assert re.fullmatch(rf"{SITE}/logo\.png\?v=[0-9a-f]{{16}}", logo["url"])
    picture = picture_of(client, logo["url"])
    assert (picture.format, picture.size) == ("PNG", (512, 512))
    response = client.get(logo["url"].removeprefix(SITE))
    assert response.headers["Cache-Control"] == YEAR
    assert client.get("/logo.png?v=stale").status_code == 302


def test_no_page_previews_an_svg(app, client, posts, kept):
    """On every page kind (home, its page 2, a topic, an author, a post, one with an upload)
    every preview image is a raster: drawings as PNG, an upload as itself."""
    slugs = posts.create(14, topics=("Databases",))
    give_image(app, slugs[0], png(), "A blue square.")
    pages = ["/", "/?page=2", "/topics/databases", "/authors/ada-example"]
    pages += [f"/posts/{slugs[0]}", f"/posts/{slugs[1]}"]
    seen = set()
    for url in pages:
        images = page_images(client, url)
        assert images, url
        for image in images:
            assert ".svg" not in image, (url, image)
            seen.add(image)
    assert any("/images/" in image for image in seen)
    for image in seen:
        assert picture_of(client, image).format == "PNG"
