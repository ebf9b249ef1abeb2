"""Images in a post's body: the editor's upload (alt text required), the srcset the render
gives the site's own images, the preview's note on other sites' images and fetching them."""

from __future__ import annotations

import http.server
import io
import socket
import threading
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog import markup
from blog.authoring import fetching, store
from blog.authoring.body_images import markdown_image
from blog.extensions import db
from blog.markup.policy import allow_attribute, find_violations
from blog.media.images import store_image
from blog.models import Image, Post, utcnow
from tests.authoring.test_auth import csrf_token, editor_client, log_in_as, make_editor
from tests.media.test_images import noise_png, picture_bytes

__all__ = ["editor_client"]

UPLOAD = "/editor/images"
FETCH = "/editor/images/fetch"
PNG = picture_bytes("PNG", (1200, 600))


def token(client) -> dict[str, str]:
    """The CSRF header the editor's script sends."""
    return {"X-CSRFToken": csrf_token(client, "/editor/posts/new")}


def send(client, data: bytes | None = PNG, alt: str | None = "A chart", **extra):
    """Upload an image for the body as the editor's script does."""
    form: dict[str, object] = dict(extra)
    if data is not None:
        form["image"] = (io.BytesIO(data), "chart.png")
    if alt is not None:
        form["alt"] = alt
    return client.post(UPLOAD, data=form, headers=token(client), content_type="multipart/form-data")


def image_count(app) -> int:
    """How many images are stored."""
    with app.app_context():
        return db.session.scalar(sa.select(sa.func.count(Image.id))) or 0


def html(response) -> BeautifulSoup:
    """A response body as parsed HTML."""
    assert response.status_code == 200, response.status_code
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


# The upload ----------------------------------------------------------------------------------


def test_an_upload_answers_the_markdown_to_insert(app, editor_client):
    """201 with `![alt](/images/<hash>.<ext>)`; the image is stored, and is served."""
    response = send(editor_client, alt="  Latency   before and after\n")
    assert response.status_code == 201
    answer = response.get_json()
    with app.app_context():
        digest = db.session.scalar(sa.select(Image.sha256))
    assert answer["src"] == f"/images/{digest}.png"
    assert answer["markdown"] == f"![Latency before and after](/images/{digest}.png)"
    assert "no-store" in response.headers["Cache-Control"]
    assert editor_client.get(answer["src"]).status_code == 200


@pytest.mark.parametrize(
    ("alt", "written"),
    [
        ("a [bracket] here", r"a \[bracket\] here"),
        ("back\\slash", r"back\\slash"),
        ("*stars*, `ticks` & <tags>", r"*stars*, \`ticks\` & <tags>"),
    ],
)
def test_alt_text_is_escaped_so_the_markdown_shows_it_as_typed(alt, written):
    """Brackets and backslashes are escaped: the rendered alt is the text typed."""
    inserted = markdown_image(alt, "/images/x.png")
    assert inserted == f"![{written}](/images/x.png)"
    rendered = BeautifulSoup(markup.render(inserted).html, "lxml").select_one("img")
    assert rendered["alt"] == alt


# The tests marked one_store in this module run on SQLite only: an upload or an address refused
# for what it is (no usable alt text, no image, a private address, a hostile or slow answer)
# is turned away before anything is stored. Storing and finding images run on both stores.
@pytest.mark.one_store
@pytest.mark.parametrize(
    ("alt", "status", "words"),
    [
        (None, 422, "alt text is required"),
        ("", 422, "alt text is required"),
        (" \n\t ", 422, "alt text is required"),
        ("\x00\x01", 422, "alt text is required"),
        ("x" * 501, 422, "the limit is 500"),
    ],
)
def test_an_upload_without_usable_alt_text_is_refused(app, editor_client, alt, status, words):
    """No alt, blank alt or alt over the limit: 422, and nothing is stored."""
    response = send(editor_client, alt=alt)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert image_count(app) == 0


def test_an_upload_of_500_characters_of_alt_text_is_taken(editor_client):
    """The limit itself is allowed."""
    assert send(editor_client, alt="x" * 500).status_code == 201


@pytest.mark.one_store
@pytest.mark.parametrize(
    ("data", "status", "words"),
    [
        (None, 422, "Choose an image"),
        (b"", 415, "empty"),
        (b"just some text, not a picture", 415, "not a PNG, JPEG, WebP or GIF"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", 415, "not a PNG"),
        (PNG[: len(PNG) // 2], 415, "damaged"),
    ],
)
def test_an_upload_that_is_no_image_is_refused(app, editor_client, data, status, words):
    """No file 422; anything Pillow cannot read as one of the four formats 415."""
    response = send(editor_client, data=data)
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert image_count(app) == 0


def test_an_upload_over_the_size_limits_is_413(app, editor_client, monkeypatch):
    """Over MAX_IMAGE_BYTES (checked by the store), over the request limit (refused before
    reading), or too many pixels: 413 with the limit named."""
    big = noise_png((300, 300))
    monkeypatch.setitem(app.config, "MAX_IMAGE_BYTES", len(big) - 1)
    response = send(editor_client, data=big)
    # The file's whole size, though only one byte past the limit is read.
    said = f"This image is {len(big):,} bytes; the limit is {len(big) - 1:,} bytes."
    assert response.status_code == 413 and response.get_json()["error"] == said
    monkeypatch.setitem(app.config, "MAX_IMAGE_BYTES", 100_000)
    response = send(editor_client, data=big)
    said = f"This image is {len(big) / 1024 / 1024:.1f} MB; the limit is 0.1 MB."
    assert response.status_code == 413 and response.get_json()["error"] == said
    monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 1000)
    response = send(editor_client, data=big)
    assert response.status_code == 413 and response.get_json()["error"] == said
    monkeypatch.setitem(app.config, "MAX_CONTENT_LENGTH", 20_000_000)
    monkeypatch.setitem(app.config, "MAX_IMAGE_BYTES", 20_000_000)
    bomb = picture_bytes("PNG", (10_000, 5_000))  # 50 megapixels, a small file
    response = send(editor_client, data=bomb)
    assert response.status_code == 413 and "megapixels" in response.get_json()["error"]
    assert image_count(app) == 0


def test_two_editors_storing_the_same_image_at_once_both_get_it(app, editor_client, monkeypatch):
    """The other editor's row lands between the store's check and this commit: no 500, the
    same address, one image."""
    from blog.media import images

    with app.app_context():
        theirs = store_image(PNG)
        db.session.commit()
        fields = {
            name: getattr(theirs, name)
            for name in ("sha256", "content_type", "data", "width", "height", "byte_size")
        }

    def unseen(data: bytes) -> Image:
        """What store_image adds when its check ran before the other editor's commit."""
        image = Image(**fields)
        db.session.add(image)
        return image

    monkeypatch.setattr(images, "store_image", unseen)  # as commit_image calls it
    response = send(editor_client)
    assert response.status_code == 201
    assert response.get_json()["src"] == f"/images/{fields['sha256']}.png"
    assert image_count(app) == 1


def test_an_upload_needs_a_login_and_a_token(app, client):
    """Logged out: 401. Without the CSRF token: 400. Neither stores anything."""
    form = {"image": (io.BytesIO(PNG), "a.png"), "alt": "A chart"}
    assert client.post(UPLOAD, data=form).status_code in (400, 401)
    log_in_as(client, make_editor(app))
    refused = client.post(UPLOAD, data={"image": (io.BytesIO(PNG), "a.png"), "alt": "x"})
    assert refused.status_code == 400 and "security token" in refused.get_json()["error"]
    client.get("/logout")
    with client.session_transaction() as session:
        session.clear()
    outsider = client.post(
        UPLOAD,
        data={"image": (io.BytesIO(PNG), "a.png"), "alt": "x"},
        headers={"X-CSRFToken": csrf_token(client)},
    )
    assert outsider.status_code == 401 and "logged out" in outsider.get_json()["error"]
    assert client.get(UPLOAD).status_code == 405
    assert image_count(app) == 0


# The render ----------------------------------------------------------------------------------


def publish(app, body: str, title: str = "With images") -> str:
    """A published post with this body; its slug."""
    with app.test_request_context():
        post = store.new_post(
            title=title,
            body=body,
            author=store.author_named("Ada Example"),
            topics=[store.topic_named("Databases")],
            published_at=utcnow() - timedelta(hours=1),
        )
        db.session.commit()
        return post.slug


def stored_src(app, data: bytes) -> str:
    """Store an image; its address."""
    with app.test_request_context():
        image = store_image(data)
        db.session.commit()
        ext = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp"}[image.content_type]
        return f"/images/{image.sha256}.{ext}"


def test_body_images_of_the_store_offer_their_copies(app, client):
    """A stored image in a body: a <picture> with WebP copies, the <img> with copies in its
    own format, sizes, width, height and lazy loading; every candidate is served."""
    src = stored_src(app, PNG)
    small = stored_src(app, picture_bytes("PNG", (300, 200)))
    slug = publish(app, f"Intro.\n\n![A wide chart]({src})\n\nText ![tiny]({small}) inline.")
    prose = html(client.get(f"/posts/{slug}")).select_one(".prose")
    picture = prose.select_one("picture")
    source, img = picture.select_one("source"), picture.select_one("img")
    assert source["type"] == "image/webp"
    assert source["srcset"] == ", ".join(
        f"{src.removesuffix('.png')}-{w}.webp {w}w" for w in (480, 960)
    )
    assert img["srcset"] == ", ".join(
        [f"{src.removesuffix('.png')}-{w}.png {w}w" for w in (480, 960)] + [f"{src} 1200w"]
    )
    assert img["sizes"] == source["sizes"] == "(min-width: 760px) 700px, 100vw"
    assert (img["src"], img["alt"], img["width"], img["height"]) == (
        src,
        "A wide chart",
        "1200",
        "600",
    )
    assert (img["loading"], img["decoding"]) == ("lazy", "async")
    for candidate in (source["srcset"] + ", " + img["srcset"]).split(", "):
        assert client.get(candidate.split()[0]).status_code == 200, candidate
    tiny = prose.select_one(f'img[src="{small}"]')
    assert tiny.find_parent("picture") is None and not tiny.has_attr("srcset")
    assert (tiny["width"], tiny["height"]) == ("300", "200")
    assert find_violations(prose.decode_contents()) == []


def test_addresses_that_are_not_stored_images_stay_plain(app, client):
    """An unknown hash, a stored hash with the wrong extension, or another site's image:
    plain <img>s, no copies offered."""
    src = stored_src(app, PNG)
    body = (
        f"![unknown](/images/{'a' * 64}.png) ![wrong]({src.removesuffix('.png')}.jpg)"
        " ![elsewhere](https://example.com/images/x.png)"
    )
    slug = publish(app, body)
    prose = html(client.get(f"/posts/{slug}")).select_one(".prose")
    assert prose.select("picture") == [] and prose.select("img[srcset]") == []
    assert len(prose.select("img")) == 3


def test_rerender_gives_older_posts_their_copies(app, runner):
    """A body stored by the previous pipeline gets the copies from `posts rerender`."""
    src = stored_src(app, PNG)
    slug = publish(app, f"![A chart]({src})")
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        post.body_html = f'<p><img alt="A chart" src="{src}"></p>'
        post.render_version = 1
        db.session.commit()
    result = runner.invoke(args=["posts", "rerender"])
    assert result.exit_code == 0, result.output
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == slug))
        assert "<picture>" in post.body_html and post.render_version == markup.PIPELINE_VERSION


def test_feeds_carry_the_original_body_image_only(app, client):
    """Feed readers get the <img> with its absolute address, no <picture> and no srcset."""
    src = stored_src(app, PNG)
    publish(app, f"![A chart]({src})")
    feed = client.get("/feed.atom").get_data(as_text=True)
    assert f'src="http://127.0.0.1:5000{src}"' in feed  # SITE_URL in the tests
    assert "picture" not in feed and "srcset" not in feed


@pytest.mark.parametrize(
    ("tag", "name", "value", "allowed"),
    [
        ("img", "srcset", "/images/a-480.png 480w, /images/a.png 900w", True),
        ("img", "srcset", "javascript:alert(1) 480w", False),
        ("img", "srcset", "/a.png 480w,/b.png 9w", False),
        ("img", "srcset", "/a.png 2x", False),
        ("source", "type", "image/webp", True),
        ("source", "type", "text/html", False),
        ("img", "loading", "lazy", True),
        ("img", "loading", "sometimes", False),
        ("img", "width", "1200", True),
        ("img", "width", "-1", False),
        ("img", "sizes", "(min-width: 760px) 700px, 100vw", True),
        ("img", "sizes", "calc(1px);background:url(x)", False),
        ("source", "src", "/a.png", False),
    ],
)
def test_the_policy_allows_only_what_the_pipeline_writes(tag, name, value, allowed):
    """The sanitizer's attribute filter checks every new attribute's value."""
    assert allow_attribute(tag, name, value) is allowed


# The preview ---------------------------------------------------------------------------------


def preview(client, body: str, htmx: bool):
    """The live preview of `body`, as htmx asks for it or as a plain post."""
    headers = token(client) | ({"HX-Request": "true", "HX-Target": "preview"} if htmx else {})
    return client.post("/editor/preview", data={"body": body}, headers=headers)


@pytest.mark.parametrize("htmx", [True, False])
def test_the_preview_says_when_another_sites_image_is_blocked(app, editor_client, htmx):
    """Each other site's image is named once, with a button to fetch and store it; the
    site's own images are not."""
    src = stored_src(app, PNG)
    body = (
        "![a](https://example.com/a.png) ![again](https://example.com/a.png)"
        f" ![b](//cdn.example.org/b.jpg?x=1&y=2) ![ours]({src})"
    )
    notice = html(preview(editor_client, body, htmx)).select_one("#blocked-images")
    assert notice is not None and "security policy" in notice.get_text()
    assert notice["data-fetch-url"] == FETCH
    buttons = notice.select("button[data-fetch-image]")
    assert [b["data-fetch-image"] for b in buttons] == [
        "https://example.com/a.png",
        "//cdn.example.org/b.jpg?x=1&y=2",
    ]
    assert all(b.get_text() == "Fetch and store it" for b in buttons)
    clean = html(preview(editor_client, f"![ours]({src}) and text", htmx))
    assert clean.select_one("#blocked-images") is None


def test_the_editor_page_offers_the_upload_and_loads_its_script(editor_client):
    """The body's image controls and their script (hidden until the script shows them)."""
    soup = html(editor_client.get("/editor/posts/new"))
    box = soup.select_one("#body-images")
    assert box is not None and box.has_attr("hidden") and box["data-upload-url"] == UPLOAD
    assert soup.select_one('label[for="body-image-alt"]') is not None
    assert soup.select_one('script[src*="js/body-images.js"]') is not None
    assert html(editor_client.get("/")).select_one('script[src*="body-images"]') is None


# Fetching ------------------------------------------------------------------------------------


class _Handler(http.server.BaseHTTPRequestHandler):
    """A small site on 127.0.0.1: an image, redirects, a slow answer, a big one, text."""

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:
        path = self.path
        if path == "/pic.png":
            self._send(200, PNG, "image/png")
        elif path.startswith("/go?"):
            self.send_response(302)
            self.send_header("Location", path.split("?", 1)[1])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/loop":
            self.send_response(301)
            self.send_header("Location", "/loop")
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif path == "/slow.png":
            time.sleep(1.5)
            self._send(200, PNG, "image/png")
        elif path == "/drip.png":
            self.send_response(200)
            self.end_headers()
            for _ in range(30):
                self.wfile.write(b"x")
                self.wfile.flush()
                time.sleep(0.1)
        elif path == "/big.png":
            self._send(200, b"\0" * 5000, "image/png")
        elif path == "/big-unsized.png":
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"\0" * 5000)
        elif path == "/page.html":
            self._send(200, b"<p>not a picture</p>", "text/html")
        else:
            self._send(404, b"missing", "text/plain")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture(scope="module")
def other_site() -> Iterator[str]:
    """The base address of a site on a loopback port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture
def loopback(app, monkeypatch) -> None:
    """Let fetches reach the test's own site on 127.0.0.1 (never allowed outside tests)."""
    monkeypatch.setitem(app.config, "IMAGE_FETCH_LOOPBACK", True)


def fetch(client, url: str | None):
    """Ask the server to fetch an image, as the preview's button does."""
    data = {} if url is None else {"url": url}
    return client.post(FETCH, data=data, headers=token(client))


def test_a_fetched_image_is_stored_and_its_address_given(app, editor_client, other_site, loopback):
    """201 with the stored copy's address, through a redirect too; same bytes, same image."""
    response = fetch(editor_client, f"{other_site}/pic.png")
    assert response.status_code == 201
    answer = response.get_json()
    assert answer["url"] == f"{other_site}/pic.png"
    assert answer["src"].startswith("/images/") and answer["src"].endswith(".png")
    assert editor_client.get(answer["src"]).status_code == 200
    again = fetch(editor_client, f"{other_site}/go?/pic.png")
    assert again.status_code == 201 and again.get_json()["src"] == answer["src"]
    assert image_count(app) == 1


@pytest.mark.one_store
@pytest.mark.parametrize(
    "url",
    [
        "http://10.0.0.1/a.png",
        "http://192.168.1.20/a.png",
        "http://169.254.169.254/latest/meta-data",
        "http://100.64.0.1/a.png",
        "http://0.0.0.0/a.png",
        "http://[::1]/a.png",
        "http://[fe80::1]/a.png",
        "http://[::ffff:10.0.0.1]/a.png",
        "http://[fd00::1]/a.png",
        "http://224.0.0.1/a.png",
        "http://localhost/a.png",
        "http://127.0.0.1/a.png",
    ],
)
def test_private_and_local_addresses_are_refused(app, editor_client, url):
    """Private, loopback, link-local, shared, multicast and unspecified addresses: 422,
    before any connection is made."""
    response = fetch(editor_client, url)
    assert response.status_code == 422
    assert "only images on public web sites" in response.get_json()["error"]


@pytest.mark.one_store
def test_loopback_is_refused_unless_the_test_setting_allows_it(editor_client, other_site):
    """Without IMAGE_FETCH_LOOPBACK the test's own site is as private as any."""
    response = fetch(editor_client, f"{other_site}/pic.png")
    assert response.status_code == 422


@pytest.mark.one_store
@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/go?http://10.1.2.3/a.png", 422, "only images on public web sites"),
        ("/go?http://169.254.169.254/", 422, "only images on public web sites"),
        ("/go?file:///etc/passwd", 422, "Only http:// and https://"),
        ("/loop", 422, "redirects more than 3 times"),
        ("/missing.png", 422, "answered 404"),
        ("/big.png", 413, "larger than the limit"),
        ("/big-unsized.png", 413, "larger than the limit"),
        ("/page.html", 415, "not a PNG, JPEG, WebP or GIF"),
        ("/slow.png", 422, "within 1 seconds"),
        ("/drip.png", 422, "within 1 seconds"),
    ],
)
def test_hostile_answers_are_refused(
    app, editor_client, other_site, loopback, monkeypatch, path, status, words
):
    """A redirect to a private address or another scheme, a redirect loop, an error answer,
    too many bytes (announced or not), something that is not an image, and a site that
    answers too slowly: each a clear 4xx, and nothing stored."""
    monkeypatch.setitem(app.config, "MAX_IMAGE_BYTES", 4000)
    monkeypatch.setattr(fetching, "FETCH_TIMEOUT", 1.0)
    started = time.monotonic()
    response = fetch(editor_client, f"{other_site}{path}")
    assert time.monotonic() - started < 2.5
    assert response.status_code == status
    assert words in response.get_json()["error"]
    assert image_count(app) == 0


@pytest.mark.one_store
def test_a_name_that_never_resolves_is_refused_by_the_deadline(app, editor_client, monkeypatch):
    """A resolver that never answers costs the fetch its deadline, not the server worker: a
    422 that says so, and nothing stored. Five such fetches at once (more than the lookup
    threads) each end by their own deadline too."""
    released = threading.Event()

    def stuck(host: str, *args, **kwargs):
        released.wait(30)  # the lookup that never answers (until the test lets it go)
        raise socket.gaierror(socket.EAI_NONAME, "not found")

    monkeypatch.setattr(socket, "getaddrinfo", stuck)
    monkeypatch.setattr(fetching, "FETCH_TIMEOUT", 0.5)
    outcomes: list[str] = []

    def fetch_directly() -> None:
        try:
            fetching.fetch("http://stuck.example/a.png", 4000)
        except fetching.FetchRefused as refused:
            outcomes.append(refused.message)

    started = time.monotonic()
    try:
        response = fetch(editor_client, "http://stuck.example/a.png")
        answered = time.monotonic() - started
        others = [threading.Thread(target=fetch_directly) for _ in range(5)]
        for thread in others:
            thread.start()
        for thread in others:
            thread.join(30)
        together = time.monotonic() - started - answered
    finally:
        released.set()
    # Broken, each would wait the full 30 s.
    assert answered < 1.5 and together < 1.5
    assert response.status_code == 422
    assert "could not be found within 0.5 seconds" in response.get_json()["error"]
    assert outcomes == ["The name stuck.example could not be found within 0.5 seconds."] * 5
    assert image_count(app) == 0


@pytest.mark.one_store
@pytest.mark.parametrize(
    ("url", "words"),
    [
        (None, "Give the address"),
        ("", "Give the address"),
        ("ftp://example.com/a.png", "Only http:// and https://"),
        ("javascript:alert(1)", "Only http:// and https://"),
        ("/images/relative.png", "Only http:// and https://"),
        ("http://example.com:99999/a.png", "impossible port"),
        ("http://no-such-host.invalid/a.png", "could not be found"),
        ("https://example.com/" + "a" * 2001, "longer than 2,000"),
    ],
)
def test_addresses_that_cannot_be_fetched_are_422(editor_client, url, words):
    """Missing, not http(s), a bad port, an unknown name or an endless address: 422."""
    response = fetch(editor_client, url)
    assert response.status_code == 422
    assert words in response.get_json()["error"]


def test_fetching_needs_a_login_and_a_token(app, client, other_site, loopback):
    """Logged out: 401. Without the CSRF token: 400."""
    make_editor(app)
    outsider = client.post(
        FETCH, data={"url": f"{other_site}/pic.png"}, headers={"X-CSRFToken": csrf_token(client)}
    )
    assert outsider.status_code == 401
    log_in_as(client, make_editor(app, "grace@example.com"))
    refused = client.post(FETCH, data={"url": f"{other_site}/pic.png"})
    assert refused.status_code == 400
    assert image_count(app) == 0
