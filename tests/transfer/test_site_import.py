"""`posts import` of Hugo and Zola sites, checked through the served site: pages read, their
images answer, their old addresses lead to them; refusals save nothing."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup

from blog.extensions import db
from blog.models import Author, Image, OldAddress, Post, Topic

DATA = Path(__file__).parents[1] / "data" / "transfer"


def run(runner, *args: str):
    """Invoke `flask posts import ...`."""
    return runner.invoke(args=["posts", "import", *args])


def counts(app) -> dict[str, int]:
    """Rows of each kind the store holds."""
    with app.app_context():
        return {
            model.__tablename__: db.session.scalar(sa.select(sa.func.count()).select_from(model))
            for model in (Post, Topic, Author, Image, OldAddress)
        }


def page(client, slug: str) -> BeautifulSoup:
    """The post page, which must answer."""
    response = client.get(f"/posts/{slug}")
    assert response.status_code == 200, slug
    return BeautifulSoup(response.get_data(as_text=True), "lxml")


def body_images_answer(client, soup: BeautifulSoup) -> list[str]:
    """The addresses of the body's images, each checked to answer with an image."""
    sources = [img["src"] for img in soup.select(".prose img") if img.get("src")]
    for source in sources:
        response = client.get(source)
        assert response.status_code == 200, source
        assert response.mimetype.startswith("image/"), source
    return sources


def test_zola_site_reads_as_it_did(app, runner, client):
    """Every post of the Zola site is served, its images from the store, its old addresses
    (with or without a slash, `.html` or `index.html`) answering 301."""
    result = run(runner, str(DATA / "zola-site"))
    assert result.exit_code == 0, result.output
    assert "created 3 (zola)" in result.output
    assert "images 2, old addresses 5" in result.output
    assert "ignored: extra.toc (1 file), weight (1 file), template (1 file)" in result.output
    queue = page(client, "tuning-the-queue")
    assert queue.select_one("h1").get_text(strip=True) == "Tuning the crane queue"
    assert len(body_images_answer(client, queue)) == 1
    # Its raw HTML reads as HTML: no tag shows as text, and no curly quote is in a tag.
    prose = queue.select_one(".prose")
    assert prose.select_one("details summary").get_text() == "The raw numbers"
    assert prose.select("sub") and prose.select("sup") and prose.select("br")
    assert "<" not in prose.get_text() and "pie-chart" not in str(prose)
    light = page(client, "lighthouse")
    sources = body_images_answer(client, light)
    assert len(sources) == 1 and re.fullmatch(r"/images/[0-9a-f]{64}\.png", sources[0])
    for old in (
        "/2023/04/02/tuning-the-queue/",
        "/2023/04/02/tuning-the-queue",
        "/2023/04/02/tuning-the-queue.html",
        "/2023/04/02/tuning-the-queue/index.html",
        "/notes/crane-queue/",
        "/blog/old-queue.html",
    ):
        response = client.get(old)
        assert response.status_code == 301, old
        assert response.headers["Location"] == "/posts/tuning-the-queue"
    assert client.get("/blog/lighthouse/").headers["Location"] == "/posts/lighthouse"
    # Every author is credited, in the file's order.
    with app.app_context():
        post = db.session.scalars(sa.select(Post).where(Post.slug == "tuning-the-queue")).one()
        assert [author.name for author in post.authors] == [
            "Mira Holt",
            "Jonas Weld",
            "Tessa Ring",
        ]
    # A draft's old address gives nothing away; an unknown address is still a 404.
    assert client.get("/blog/half-written/").status_code == 404
    assert client.get("/nothing/here/").status_code == 404


def test_hugo_site_and_running_again(app, runner, client):
    """The Hugo site imports; importing it again changes nothing."""
    result = run(runner, str(DATA / "hugo-site"))
    assert result.exit_code == 0, result.output
    assert "created 3 (hugo)" in result.output
    before = counts(app)
    first = page(client, "first-light")
    assert len(body_images_answer(client, first)) == 1
    cold = page(client, "cold-start")
    assert len(body_images_answer(client, cold)) == 1
    assert cold.select_one(".prose img")["alt"] == "pressure over the first hour"
    assert client.get("/procedures/cold-start/").headers["Location"] == "/posts/cold-start"
    assert client.get("/old/first-light.html").headers["Location"] == "/posts/first-light"
    again = run(runner, str(DATA / "hugo-site"))
    assert again.exit_code == 0, again.output
    assert "created 0 (hugo), updated 0, unchanged 3" in again.output
    assert "images 0, old addresses 0" in again.output
    assert counts(app) == before


def copy_site(tmp_path: Path, name: str = "zola-site") -> Path:
    """A copy of a fixture site to change."""
    return Path(shutil.copytree(DATA / name, tmp_path / name))


def test_a_refused_file_saves_nothing_unless_skipped(app, runner, tmp_path):
    """One bad file refuses the whole import, named as file:line: message; --skip-invalid
    saves the others and names it."""
    site = copy_site(tmp_path)
    bad = site / "content" / "blog" / "broken.md"
    bad.write_text('+++\ntitle = "Broken"\ndate = "someday"\n+++\nText.\n')
    result = run(runner, str(site))
    assert result.exit_code == 1
    assert f"{bad}:3: `date` must be an ISO 8601 date" in result.output
    assert "nothing was imported" in result.output
    assert counts(app)["posts"] == 0
    skipped = run(runner, "--skip-invalid", str(site))
    assert skipped.exit_code == 0, skipped.output
    assert "created 3 (zola)" in skipped.output
    assert f"skipped: {bad}:3: `date` must be" in skipped.output


@pytest.mark.parametrize(
    "reference",
    [
        "![secret](../../../../../../../../etc/hostname.png)",
        '<img src="../../../../../outside.png" alt="x">',
        "![linked](link.png)",
    ],
)
def test_an_image_outside_the_site_is_refused(app, runner, tmp_path, reference):
    """An image path that leads out of PATH, by `..` or by a link, refuses the import."""
    outside = tmp_path / "outside.png"
    shutil.copy(DATA / "images" / "vacuum-gauge.png", outside)
    site = copy_site(tmp_path / "inside")
    post = site / "content" / "blog" / "lighthouse" / "index.md"
    (post.parent / "link.png").symlink_to(outside)
    post.write_text(post.read_text() + f"\n{reference}\n")
    result = run(runner, str(site))
    assert result.exit_code == 1
    assert "is outside the imported folder" in result.output
    assert counts(app)["images"] == 0


def test_a_huge_image_is_refused(app, runner, tmp_path):
    """An image over MAX_IMAGE_BYTES is refused with the limit, never read whole."""
    site = copy_site(tmp_path)
    huge = site / "content" / "blog" / "lighthouse" / "beam.png"
    with huge.open("ab") as file:
        file.truncate(app.config["MAX_IMAGE_BYTES"] + 10)
    result = run(runner, str(site))
    assert result.exit_code == 1
    assert "beam.png" in result.output and "the limit is" in result.output
    assert counts(app)["posts"] == 0


def test_an_old_address_of_another_post_is_refused(app, runner, tmp_path):
    """An old address already leading to another post refuses the file that claims it."""
    assert run(runner, str(DATA / "hugo-site")).exit_code == 0
    site = copy_site(tmp_path)
    post = site / "content" / "blog" / "lighthouse" / "index.md"
    alias = 'authors = ["Jonas Weld"]\naliases = ["/procedures/cold-start/"]'
    post.write_text(post.read_text().replace('authors = ["Jonas Weld"]', alias, 1))
    result = run(runner, str(site))
    assert result.exit_code == 1
    assert "old address /procedures/cold-start already leads to “Cold start procedure”" in (
        result.output
    )


def test_old_addresses_never_shadow_pages(app, runner, tmp_path):
    """An old address that is a page of this site (the feed) is left out and said so."""
    site = copy_site(tmp_path)
    post = site / "content" / "blog" / "lighthouse" / "index.md"
    text = post.read_text().replace('authors = ["Jonas Weld"]', 'aliases = ["/feed.atom"]', 1)
    post.write_text(text)
    result = run(runner, str(site))
    assert result.exit_code == 0, result.output
    assert "old addresses that are pages of this site: 1" in result.output


def test_jekyll_site_reads_as_it_did(app, runner, client):
    """The Jekyll site's posts are served with their Liquid rendered (code highlighted, no
    `{{ site.* }}` left), their images stored, their permalinks and redirect_from 301."""
    result = run(runner, str(DATA / "jekyll-site"))
    assert result.exit_code == 0, result.output
    assert "created 3 (jekyll)" in result.output
    assert "left as written: {% include %}: 1" in result.output
    assert "ignored: layout (1 file), version (1 file), comments (1 file)" in result.output
    pager = page(client, "the-pager-rotation")
    prose = pager.select_one(".prose")
    assert prose.select_one("div.highlight") is not None
    assert "{{" not in prose.get_text().replace("{{ name }}", "")
    assert len(body_images_answer(client, pager)) == 1
    assert prose.select_one('a[href="/posts/quiet-nights"]') is not None
    for old in ("/news/2021/02/03/the-pager-rotation/", "/pager/", "/pager"):
        assert client.get(old).headers["Location"] == "/posts/the-pager-rotation", old
    assert client.get("/news/2021/03/04/quiet-nights/").status_code == 301


WORDPRESS = DATA / "wordpress"


def test_wordpress_export_reads_as_it_did(app, runner, client):
    """The export's posts are served with their uploads stored and their old links (and
    `/?p=ID`) answering 301; drafts and scheduled posts stay out of sight."""
    result = run(runner, "--uploads", str(WORDPRESS / "uploads"), str(WORDPRESS / "export.xml"))
    assert result.exit_code == 0, result.output
    assert "created 7 (wordpress)" in result.output
    assert "images 2" in result.output
    assert "left as written: [contact-form]: 1" in result.output
    kettle = page(client, "descaling-the-kettle")
    prose = kettle.select_one(".prose")
    assert prose.select_one("figure figcaption").get_text() == "The kettle before we started"
    assert len(body_images_answer(client, kettle)) == 3
    assert "[caption" not in prose.get_text() and "wp:" not in str(prose)
    for old in ("/2022/05/14/descaling-the-kettle/", "/?p=11"):
        response = client.get(old)
        assert response.status_code == 301, old
        assert response.headers["Location"] == "/posts/descaling-the-kettle"
    assert client.get("/?p=14").status_code == 200  # scheduled: the home page, nothing given away
    assert client.get("/posts/new-kettle").status_code == 404
    assert client.get("/?p=999").status_code == 200
    again = run(runner, "--uploads", str(WORDPRESS / "uploads"), str(WORDPRESS / "export.xml"))
    assert "created 0 (wordpress), updated 0, unchanged 7" in again.output


def test_uploads_only_with_wordpress(runner):
    """--uploads with another kind of site is a usage error."""
    result = run(runner, "--uploads", str(WORDPRESS / "uploads"), str(DATA / "zola-site"))
    assert result.exit_code == 2 and "--uploads is for a WordPress export" in result.output


DRAWING = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 40 20">'
    '<rect width="40" height="20" fill="teal"/></svg>'
)


@pytest.mark.parametrize(("width", "height"), [("40", "20"), ("400000", "200000")])
def test_an_svg_beside_a_post_is_drawn_as_a_png(app, runner, client, tmp_path, width, height):
    """An SVG the body shows is stored as a PNG (scaled down when huge), never as SVG."""
    site = copy_site(tmp_path)
    folder = site / "content" / "blog" / "lighthouse"
    (folder / "plan.svg").write_text(DRAWING.format(w=width, h=height))
    post = folder / "index.md"
    post.write_text(post.read_text() + "\n![the wiring plan](plan.svg)\n")
    result = run(runner, str(site))
    assert result.exit_code == 0, result.output
    sources = body_images_answer(client, page(client, "lighthouse"))
    assert len(sources) == 2 and all(source.endswith(".png") for source in sources)
    with app.app_context():
        sizes = {(image.width, image.height) for image in db.session.scalars(sa.select(Image))}
    assert (40, 20) in sizes or (2400, 1200) in sizes


@pytest.mark.parametrize(
    ("drawing", "message"),
    [
        (
            '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY e SYSTEM "file:///etc/hostname">]>'
            '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"><text>&e;</text></svg>',
            "not an SVG drawing that can be read",
        ),
        ('<svg xmlns="http://www.w3.org/2000/svg"><rect/></svg>', "without a width and height"),
        ("not a drawing", "not an SVG drawing"),
    ],
)
def test_an_svg_that_cannot_be_drawn_safely_is_refused(app, runner, tmp_path, drawing, message):
    """An SVG with entities, without a size or that is not SVG refuses its post."""
    site = copy_site(tmp_path)
    folder = site / "content" / "blog" / "lighthouse"
    (folder / "plan.svg").write_text(drawing)
    post = folder / "index.md"
    post.write_text(post.read_text() + "\n![the wiring plan](plan.svg)\n")
    result = run(runner, str(site))
    assert result.exit_code == 1
    assert "body image plan.svg: " in result.output and message in result.output
    assert counts(app)["posts"] == 0


def test_an_import_goes_in_batches_and_a_stopped_one_is_finished_by_running_it_again(
    app, runner, client, monkeypatch
):
    """Posts are saved one batch per transaction; an import stopped after a batch keeps
    what it saved, and running it again saves the rest and changes nothing else."""
    from blog.transfer import files, site_import

    monkeypatch.setattr(site_import, "BATCH", 1)
    real_save, calls = files._save, []

    def stop_at_the_second_batch(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt  # as if the import were killed half-way
        return real_save(*args, **kwargs)

    monkeypatch.setattr(files, "_save", stop_at_the_second_batch)
    stopped = run(runner, str(DATA / "zola-site"))
    assert stopped.exit_code != 0 and "created" not in stopped.output
    assert counts(app)["posts"] == 1
    assert counts(app)["images"] == 2  # images go in before the posts that show them
    monkeypatch.setattr(files, "_save", real_save)
    again = run(runner, str(DATA / "zola-site"))
    assert again.exit_code == 0, again.output
    assert "created 2 (zola), updated 0, unchanged 1" in again.output
    assert counts(app)["posts"] == 3 and counts(app)["old_addresses"] == 5
    assert client.get("/notes/crane-queue/").status_code == 301


def slow_bodies(monkeypatch, words: str, *, from_call: int = 1) -> list[str]:
    """Make every render of a body holding `words` too slow, from its `from_call`th render
    on; the bodies rendered, in order."""
    from blog import markup

    real_render, seen = markup.render, []

    def render(text, **options):
        seen.append(text)
        if words in text and sum(words in body for body in seen) >= from_call:
            raise markup.TooSlow(1.0)
        return real_render(text, **options)

    monkeypatch.setattr(markup, "render", render)
    return seen


def test_a_body_too_slow_to_render_is_found_before_anything_is_written(app, runner, monkeypatch):
    """A body the render limit stops refuses the import while it is checked, named at the
    body's first line in its file; --skip-invalid saves the others and names it."""
    slow_bodies(monkeypatch, "beam flickered")
    post = DATA / "zola-site" / "content" / "blog" / "lighthouse" / "index.md"
    first_line = post.read_text().split("\n")[1:].index("+++") + 3
    result = run(runner, str(DATA / "zola-site"))
    assert result.exit_code == 1
    assert f"{post}:{first_line}: the body takes too long to render" in result.output
    assert "nothing was imported" in result.output
    assert counts(app)["posts"] == 0 and counts(app)["images"] == 0
    skipped = run(runner, "--skip-invalid", str(DATA / "zola-site"))
    assert skipped.exit_code == 0, skipped.output
    assert "created 2 (zola)" in skipped.output
    assert f"skipped: {post}:{first_line}: the body takes too long to render" in skipped.output
    assert counts(app)["posts"] == 2


def test_running_again_renders_no_body_already_stored(app, runner, monkeypatch):
    """A second run checks no body its post already holds (each rendered in time when it
    was saved): nothing is rendered at all, and nothing changes."""
    assert run(runner, str(DATA / "zola-site")).exit_code == 0
    rendered = slow_bodies(monkeypatch, "")  # every render would now be too slow
    again = run(runner, str(DATA / "zola-site"))
    assert again.exit_code == 0, again.output
    assert "unchanged 3" in again.output and rendered == []


def test_a_first_import_renders_each_body_once(app, runner, monkeypatch):
    """Each body is rendered once, while it is checked, and its save stores that render: the
    one a save makes (the site's link policy, the sizes of images the import stores)."""
    from blog.authoring import store

    monkeypatch.setitem(app.config, "LINK_NOFOLLOW", True)
    rendered = slow_bodies(monkeypatch, "no body holds this")
    result = run(runner, str(DATA / "zola-site"))
    assert result.exit_code == 0, result.output
    assert "created 3 (zola)" in result.output and "images 2" in result.output
    with app.app_context():
        stored = db.session.scalars(sa.select(Post)).all()
        assert sorted(rendered) == sorted(post.body_markdown for post in stored)
        for post in stored:
            assert post.body_html == store.render_body(post.body_markdown).html, post.slug
        shown = next(post for post in stored if post.slug == "lighthouse").body_html
        assert 'width="64"' in shown  # the image stored with the post gave its size


def test_a_body_too_slow_only_when_saved_stops_the_import_at_its_batch(
    app, runner, monkeypatch, tmp_path
):
    """A body its post holds is rendered again only when saved (its summary changed, here):
    too slow then (a machine suddenly busier), it stops the import at its batch, the batches
    before it stay, and the message says how to finish."""
    from blog.transfer import site_import

    site = copy_site(tmp_path)
    assert run(runner, str(site)).exit_code == 0
    post = site / "content" / "blog" / "lighthouse" / "index.md"
    post.write_text(post.read_text().replace("+++\ntitle", '+++\ndescription = "New."\ntitle'))
    monkeypatch.setattr(site_import, "BATCH", 1)
    slow_bodies(monkeypatch, "beam flickered")
    result = run(runner, str(site))
    assert result.exit_code == 1
    assert "index.md" in result.output and "takes too long to render" in result.output
    assert "the import stopped after" in result.output and "run it again" in result.output


def test_hugo_permalinks_and_refs_through_the_served_site(app, runner, client, tmp_path):
    """A Hugo site's `[permalinks]` addresses lead to the imported posts, and its refs are
    links that answer; a ref to a missing post refuses the import, named at its line."""
    from tests.transfer.formats.test_links import write_site

    root = write_site(tmp_path / "ovens")
    result = run(runner, str(root))
    assert result.exit_code == 0, result.output
    assert "created 3 (hugo)" in result.output and "old addresses 3" in result.output
    for old, slug in (
        ("/2021/05/bread-at-dawn/", "bread"),
        ("/2021/06/proofing-dough.html", "proofing-dough"),
        ("/notes/oven-temps/", "oven-temps"),
    ):
        response = client.get(old)
        assert response.status_code == 301, old
        assert response.headers["Location"] == f"/posts/{slug}"
    links = [a["href"] for a in page(client, "bread").select(".prose a")]
    assert links == ["/posts/oven-temps", "/posts/proofing-dough#times", "#top"]
    for link in links[:2]:
        assert client.get(link.partition("#")[0]).status_code == 200
    note = root / "content" / "notes" / "oven-temps.md"
    note.write_text(note.read_text() + '\nSee {{< ref "gone.md" >}}.\n')
    refused = run(runner, str(root))
    assert refused.exit_code == 1
    assert f'{note}:9: `{{{{< ref "gone.md" >}}}}` no post of the imported site' in (refused.output)


def test_jekyll_defaults_through_the_served_site(app, runner, client, tmp_path):
    """Posts take the author and permalink `defaults:` give them: the byline names the
    default author, and the default permalink answers 301."""
    from tests.transfer.formats.test_jekyll import defaults_site

    root = defaults_site(tmp_path / "site")
    result = run(runner, str(root))
    assert result.exit_code == 0, result.output
    assert "ignored: layout (2 files)" in result.output
    assert page(client, "plain").select_one(".post-meta").get_text().startswith("By Night Desk")
    assert client.get("/ops/swap/").headers["Location"] == "/posts/swap"
    assert client.get("/news/2021/plain.html").headers["Location"] == "/posts/plain"
    strict = run(runner, "--strict", str(root))
    assert strict.exit_code == 1 and f"{root / '_config.yml'}:3: `layout`" in strict.output


def test_wordpress_featured_images_through_the_served_site(app, runner, client, tmp_path):
    """Featured images from --uploads are the posts' pictures on their pages, and answer;
    two files of one picture are one stored image; what was left behind, and the comments,
    are said; importing again changes nothing."""
    from tests.transfer.formats.test_wordpress import garden

    export, uploads = garden(tmp_path)
    result = run(runner, "--uploads", str(uploads), str(export))
    assert result.exit_code == 0, result.output
    assert "created 4 (wordpress)" in result.output and "images 1," in result.output
    assert "note: " in result.output and "2 comment(s) on 1 post(s)" in result.output
    assert "ignored: comments (1 post), meta.mood (1 post)" in result.output
    for slug, alt in (("raised-beds", "A raised bed of dark soil"), ("compost", None)):
        art = page(client, slug).select_one("img.post-art")
        assert art["src"].startswith("/images/") and client.get(art["src"]).status_code == 200
        assert alt is None or art["alt"] == alt
    seeds = page(client, "seeds").select_one("img.post-art")["src"]
    assert seeds.startswith("/illustrations/")  # left behind: the post shows its drawing
    assert client.get("/raised-beds/").headers["Location"] == "/posts/raised-beds"
    assert client.get("/composting/").headers["Location"] == "/posts/compost"
    again = run(runner, "--uploads", str(uploads), str(export))
    assert "created 0 (wordpress), updated 0, unchanged 4" in again.output


@pytest.mark.parametrize("how", ["climbs", "link"])
def test_a_featured_image_outside_the_uploads_is_refused(app, runner, tmp_path, how):
    """A featured image whose path climbs out of --uploads, or is a link leading out,
    refuses the import, named at its post; nothing is saved."""
    from tests.transfer.formats.test_wordpress import garden

    secret = tmp_path / "secret.png"
    shutil.copy(DATA / "images" / "vacuum-gauge.png", secret)
    picture = "2023/04/../../../../secret.png" if how == "climbs" else "2023/04/link.png"
    export, uploads = garden(tmp_path / "site", picture)
    (uploads / "2023" / "04" / "link.png").symlink_to(secret)
    result = run(runner, "--uploads", str(uploads), str(export))
    assert result.exit_code == 1
    assert f"{export} (item 1, post 1):1: `featured image`: " in result.output
    assert "is outside the imported folder" in result.output
    assert counts(app)["posts"] == 0 and counts(app)["images"] == 0


def test_zola_links_through_the_served_site(app, runner, client, tmp_path):
    """A Zola post's `@/` links lead to the imported post and to its section's topic, and
    both answer."""
    from tests.transfer.formats.test_links import zola_site

    result = run(runner, str(zola_site(tmp_path / "docks")))
    assert result.exit_code == 0, result.output
    links = [a["href"] for a in page(client, "cranes").select(".prose a")]
    assert links == ["/posts/tides#spring", "/topics/dock-notes", "/posts/tides", "/posts/tides"]
    for link in set(links):
        assert client.get(link.partition("#")[0]).status_code == 200, link
