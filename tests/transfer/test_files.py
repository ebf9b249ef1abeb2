"""`posts import` / `posts export`: the Markdown format, its checks, and lossless round trips."""

from __future__ import annotations

import io
import random
import shutil
import time
import uuid
from datetime import datetime
from pathlib import Path

import PIL.Image
import pytest
import sqlalchemy as sa
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from blog.authoring import store
from blog.extensions import db
from blog.media import images
from blog.models import DRAFT, Author, Image, Post, SlugRedirect, Topic
from blog.transfer import files as transfer
from blog.transfer import frontmatter
from blog.transfer.frontmatter import Entry, canonical_body, read_post, write_post
from tests.conftest import count_queries
from tests.markup.test_pipeline import ENGINEERING_BODY

DATA = Path(__file__).parents[1] / "data" / "transfer"
EXAMPLE_IMAGE = DATA / "images" / "vacuum-gauge.png"


def run(runner, *args: str):
    """Invoke `flask posts ...` and return the result."""
    return runner.invoke(args=["posts", *args])


def empty_database(app) -> None:
    """Delete every row, as a fresh database would be."""
    with app.app_context():
        db.session.remove()
        with db.engine.begin() as connection:
            for table in reversed(db.metadata.sorted_tables):
                connection.execute(table.delete())


def counts(app) -> dict[str, int]:
    """How many posts, topics, authors and images the store holds."""
    with app.app_context():
        return {
            model.__tablename__: db.session.scalar(sa.select(sa.func.count()).select_from(model))
            for model in (Post, Topic, Author, Image)
        }


def post_named(slug: str) -> Post:
    """The stored post with this slug (inside an app context)."""
    return db.session.scalars(sa.select(Post).where(Post.slug == slug)).one()


def uid_of(app, slug: str) -> uuid.UUID:
    """The permanent id of the stored post with this slug."""
    with app.app_context():
        return db.session.scalars(sa.select(Post.uid).where(Post.slug == slug)).one()


def write_files(folder: Path, count: int, *, title: str = "Generated post") -> list[Path]:
    """Write `count` valid post files into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for number in range(count):
        path = folder / f"{number:03d}-post.md"
        path.write_text(
            f"---\ntitle: {title} {number}\ndate: 2024-02-{number % 28 + 1:02d}T12:00:00Z\n"
            f"topics: [Databases, Number {number % 3}]\nauthor: Ada Example\n---\n\n"
            f"Paragraph {number} of the body.\n",
            encoding="utf-8",
        )
        paths.append(path)
    return paths


def picture(kind: str = "PNG", colour: tuple[int, int, int] = (30, 90, 160)) -> bytes:
    """A small real image of the given format."""
    out = io.BytesIO()
    PIL.Image.new("RGB", (48, 32), colour).save(out, kind)
    return out.getvalue()


def noisy_picture(kind: str, seed: int = 6) -> bytes:
    """A small image of random (repeatable) pixels: re-encoding it would change its bytes."""
    pixels = random.Random(seed).randbytes(48 * 32 * 3)
    out = io.BytesIO()
    PIL.Image.frombytes("RGB", (48, 32), pixels).save(out, kind)
    return out.getvalue()


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under a folder, by relative path, with its bytes."""
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


# --- Importing ------------------------------------------------------------------------------


def test_example_file_imports_every_field(app, runner, client):
    """The example file of docs/import-export.md sets every field, its image included."""
    result = run(runner, "import", str(DATA / "example.md"))
    assert result.exit_code == 0, result.output
    assert result.output == "created 1, updated 0, unchanged 0\n"
    with app.app_context():
        post = post_named("vacuum-explained")
        assert post.title == "Vacuum, explained: what autovacuum does at 3 a.m."
        assert post.uid == uuid.UUID("3c5e8f2a-9b14-4d6e-a7c0-1f2e3d4c5b6a")
        assert post.published_at == datetime(2024, 3, 5, 8, 30)  # +01:00 stored as UTC
        assert post.updated_at == datetime(2024, 4, 11, 16, 0)
        assert post.status == "published"
        assert post.author.name == "Ada Example"
        assert [topic.name for topic in post.topics] == ["Databases", "Operations"]
        assert post.primary_topic.name == "Databases"
        assert post.summary.startswith("Why dead rows pile up,")
        assert "\nand the three settings" in post.summary
        assert post.excerpt == post.summary
        assert post.featured and post.editors_pick
        assert post.image_alt.startswith("A gauge of dead rows")
        assert post.image is not None and (post.image.width, post.image.height) == (240, 135)
        assert "<h2" in post.body_html and "What piles up" in post.body_html
        with app.test_request_context():
            address = images.image_url(post.image)
    served = client.get(address)
    assert served.status_code == 200
    assert served.mimetype == "image/png"
    with PIL.Image.open(io.BytesIO(served.data)) as shown:
        assert shown.size == (240, 135)
    page = client.get("/posts/vacuum-explained")
    assert page.status_code == 200
    assert address in page.get_data(as_text=True)


def test_static_site_folder_maps_every_alias(app, runner):
    """Tags, categories, lastmod, modified, description, Pelican headers: all land in place."""
    result = run(runner, "import", str(DATA / "static-site"))
    assert result.exit_code == 0, result.output
    assert result.output == "created 4, updated 0, unchanged 0\n"
    with app.app_context():
        assert sorted(db.session.scalars(sa.select(Post.slug))) == [
            "four-step-schema-change",
            "notes-on-connection-pools-unfinished",
            "our-on-call-handbook-one-year-in",
            "reading-a-flame-graph-without-squinting",
        ]
        aliased = post_named("reading-a-flame-graph-without-squinting")
        assert [t.name for t in aliased.topics] == ["Performance", "Profiling", "Tooling"]
        assert aliased.published_at == datetime(2023, 11, 20, 13, 15)
        assert aliased.updated_at == datetime(2023, 12, 1)
        assert aliased.summary == "Width is time, height is depth; the rest is practice."
        assert aliased.body_markdown.startswith("A flame graph")
        capitalized = post_named("our-on-call-handbook-one-year-in")
        assert [t.name for t in capitalized.topics] == ["Operations", "on-call", "culture"]
        assert capitalized.published_at == datetime(2023, 5, 1, 8, 0)
        assert capitalized.editors_pick and not capitalized.featured
        assert capitalized.author.name == "Mia Example"
        pelican = post_named("four-step-schema-change")
        assert pelican.title == "Shipping a schema change in four steps"
        assert pelican.published_at == datetime(2022, 9, 14, 13, 45)
        assert pelican.updated_at == datetime(2022, 10, 2, 8, 0)
        assert [t.name for t in pelican.topics] == ["Databases", "migrations", "releases"]
        assert pelican.summary == (
            "Expand, migrate, switch, contract: the order that never needs downtime."
        )
        draft = post_named("notes-on-connection-pools-unfinished")
        assert draft.status == "draft" and draft.published_at is None
        # Ravi Example wrote two of them: one author row, not two.
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Author)) == 3


def test_reimport_changes_nothing_and_edits_update(app, runner, tmp_path):
    """A second run reports everything unchanged; an edited file updates just its post."""
    paths = write_files(tmp_path / "site", 5)
    assert run(runner, "import", str(tmp_path / "site")).output == (
        "created 5, updated 0, unchanged 0\n"
    )
    with app.app_context():
        before = {
            p.slug: (p.lock_version, p.modified_at) for p in db.session.scalars(sa.select(Post))
        }
    assert run(runner, "import", str(tmp_path / "site")).output == (
        "created 0, updated 0, unchanged 5\n"
    )
    with app.app_context():
        after = {
            p.slug: (p.lock_version, p.modified_at) for p in db.session.scalars(sa.select(Post))
        }
    assert after == before

    text = paths[2].read_text().replace("topics: [Databases, Number 2]", "topics: [Number 2]")
    paths[2].write_text(text.replace("Paragraph 2", "A rewritten paragraph"))
    result = run(runner, "import", str(tmp_path / "site"))
    assert result.output == "created 0, updated 1, unchanged 4\n"
    with app.app_context():
        post = post_named("generated-post-2")
        assert [t.name for t in post.topics] == ["Number 2"]
        assert "A rewritten paragraph" in post.body_html
        assert post.lock_version == before["generated-post-2"][0] + 1
    assert run(runner, "import", str(tmp_path / "site")).output == (
        "created 0, updated 0, unchanged 5\n"
    )


def test_an_update_takes_the_editors_path_and_keeps_the_files_dates(
    app, runner, tmp_path, monkeypatch
):
    """A changed file updates its post through store.update_post; a rewritten live post keeps
    the `updated` date its file gives (none here), not the time of the import."""
    (path,) = write_files(tmp_path, 1)
    assert run(runner, "import", str(tmp_path)).exit_code == 0
    path.write_text(path.read_text().replace("Paragraph 0", "A new paragraph"))
    updated = []
    update_post = store.update_post

    def recorded(post, fields, **options):
        updated.append(post.slug)
        update_post(post, fields, **options)

    monkeypatch.setattr(store, "update_post", recorded)
    assert run(runner, "import", str(tmp_path)).output == "created 0, updated 1, unchanged 0\n"
    assert updated == ["generated-post-0"]
    with app.app_context():
        post = post_named("generated-post-0")
        assert "A new paragraph" in post.body_html and post.updated_at is None


def test_alt_text_without_an_image_is_dropped_as_the_editor_drops_it(app, runner, tmp_path):
    """`image_alt` with no `image` describes nothing: not stored, and a re-import is a no-op."""
    (tmp_path / "p.md").write_text(
        "---\ntitle: No picture\ndate: 2024-01-01\ntopics: [A]\nimage_alt: A cat\n---\n"
    )
    assert run(runner, "import", str(tmp_path)).output == "created 1, updated 0, unchanged 0\n"
    with app.app_context():
        assert post_named("no-picture").image_alt is None
    assert run(runner, "import", str(tmp_path)).output == "created 0, updated 0, unchanged 1\n"


def test_bad_file_among_a_hundred_good_ones_imports_nothing(app, runner, tmp_path):
    """One bad file refuses the whole import: every problem listed, nothing written."""
    write_files(tmp_path / "site", 100)
    bad = tmp_path / "site" / "zz-bad.md"
    bad.write_text("---\ntitle: Broken\ndate: soon\ntopics: [Databases]\n---\nBody\n")
    result = run(runner, "import", str(tmp_path / "site"))
    assert result.exit_code == 1
    assert result.stdout == ""
    assert f"{bad}:3: `date` must be an ISO 8601 date" in result.stderr
    assert "1 problem(s) in 1 file(s); nothing was imported." in result.stderr
    assert counts(app) == {"posts": 0, "topics": 0, "authors": 0, "images": 0}


def test_the_drawing_spec_travels_through_export_and_import(app, runner, tmp_path):
    """`illustration:` is stored in its one spelling, written back by export, and an import
    of that export changes nothing; into an empty database it comes back as it was."""
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "p.md").write_text(
        "---\ntitle: Drawn by hand\ndate: 2024-01-01\ntopics: [A]\n"
        'illustration: "KIND: bars; values: 800ms, 120 ms"\n---\nBody\n'
    )
    assert run(runner, "import", str(tmp_path / "in")).exit_code == 0
    with app.app_context():
        assert post_named("drawn-by-hand").illustration == "kind: bars; values: 800 ms, 120 ms"
    assert run(runner, "export", str(tmp_path / "out")).exit_code == 0
    written = (tmp_path / "out" / "drawn-by-hand.md").read_text()
    assert "\nillustration: 'kind: bars; values: 800 ms, 120 ms'\n" in written
    result = run(runner, "import", str(tmp_path / "out"))
    assert result.output == "created 0, updated 0, unchanged 1\n"
    empty_database(app)
    assert run(runner, "import", str(tmp_path / "out")).exit_code == 0
    with app.app_context():
        assert post_named("drawn-by-hand").illustration == "kind: bars; values: 800 ms, 120 ms"


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ('"kind: teapot"', "`illustration`: There is no drawing of kind “teapot”"),
        ('"kind: bars; values: -1, NaN"', "`illustration`: `values`: “-1” is negative"),
        ('"kind: bars; kind: queue"', "`illustration`: `kind` is given twice"),
        ("[kind, bars]", "`illustration` must be text like `kind: bars`"),
        ('"' + "x" * 200_000 + '"', "`illustration`: The drawing's spec is 200,000 characters"),
    ],
)
def test_a_bad_drawing_spec_refuses_the_import(app, runner, tmp_path, value, message):
    """A broken spec names the file, the line and the rule, and nothing is imported."""
    write_files(tmp_path, 3)
    bad = tmp_path / "zz-bad.md"
    bad.write_text(f"---\ntitle: Bad\ndate: 2024-01-01\ntopics: [A]\nillustration: {value}\n---\n")
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert f"{bad}:5: {message}" in result.stderr
    assert counts(app)["posts"] == 0


def test_bad_image_refuses_the_import_and_keeps_no_image(app, runner, tmp_path):
    """An image the store refuses is a problem like any other: nothing is kept."""
    site = tmp_path / "site"
    write_files(site, 3)
    (site / "good.png").write_bytes(picture())
    (site / "fake.png").write_bytes(b"not a picture at all")
    header = "---\ntitle: {}\ndate: 2024-01-01\ntopics: [Databases]\nimage: {}\nimage_alt: x\n---\n"
    (site / "with-good.md").write_text(header.format("Good image", "good.png"))
    (site / "with-fake.md").write_text(header.format("Fake image", "fake.png"))
    (site / "with-none.md").write_text(header.format("Missing image", "nowhere/gone.png"))
    result = run(runner, "import", str(site))
    assert result.exit_code == 1
    assert f"{site / 'with-fake.md'}:5: `image` fake.png: That file is not a PNG" in result.stderr
    assert f"{site / 'with-none.md'}:5: `image`: cannot read nowhere/gone.png" in result.stderr
    assert "2 problem(s) in 2 file(s)" in result.stderr
    assert counts(app) == {"posts": 0, "topics": 0, "authors": 0, "images": 0}


# Bodies that take half a minute or more to render without the time limit (issue #19).
SLOW_BODIES = {"asterisks": ("**a" * 66_667)[:200_000], "fences": ("```\n" * 50_000)[:200_000]}
TOO_SLOW = "the body takes too long to render (more than 0.3 seconds, the MARKDOWN_TIME_LIMIT)"


def test_bodies_too_slow_to_render_refuse_the_import(app, runner, tmp_path, monkeypatch):
    """Each such body is named, the import exits with 1, and nothing is written, the posts
    already imported included; the answer comes well before the half minute they would take."""
    monkeypatch.setitem(app.config, "MARKDOWN_TIME_LIMIT", 0.3)
    site = tmp_path / "site"
    paths = write_files(site, 3)
    assert run(runner, "import", str(site)).exit_code == 0
    before = counts(app)
    with app.app_context():
        stored_before = post_named("generated-post-1").body_markdown
    header = "---\ntitle: {}\ndate: 2024-01-01\ntopics: [New topic]\n---\n\n"
    slow_files = []
    for name, body in SLOW_BODIES.items():
        slow_files.append(site / f"slow-{name}.md")
        slow_files[-1].write_text(header.format(f"Slow {name}") + body + "\n")
    paths[1].write_text(paths[1].read_text() + "\n" + SLOW_BODIES["asterisks"] + "\n")
    started = time.monotonic()
    result = run(runner, "import", str(site))
    assert time.monotonic() - started < 10
    assert result.exit_code == 1
    for path in [paths[1], *slow_files]:
        assert f"{path}:1: {TOO_SLOW}" in result.stderr
    assert "3 problem(s) in 3 file(s); nothing was imported." in result.stderr
    assert counts(app) == before
    with app.app_context():
        assert post_named("generated-post-1").body_markdown == stored_before


def test_images_must_sit_inside_the_imported_folder(app, runner, tmp_path):
    """`..`, an absolute path and a link leading out are refused: an import never publishes
    a file the server can read elsewhere; a link that stays inside is fine."""
    site, outside = tmp_path / "site", tmp_path / "private"
    site.mkdir()
    outside.mkdir()
    (outside / "secret.png").write_bytes(picture())
    (site / "inside.png").write_bytes(picture(colour=(10, 200, 10)))
    (site / "leads-out.png").symlink_to(outside / "secret.png")
    (site / "stays-in.png").symlink_to(site / "inside.png")
    header = "---\ntitle: {}\ndate: 2024-01-01\ntopics: [Databases]\nimage: {}\nimage_alt: x\n---\n"
    refused = {
        "up.md": "../private/secret.png",
        "absolute.md": str(outside / "secret.png"),
        "link.md": "leads-out.png",
    }
    for name, image in refused.items():
        (site / name).write_text(header.format(name, image))
    result = run(runner, "import", str(site))
    assert result.exit_code == 1
    for name, image in refused.items():
        assert f"{site / name}:5: `image`: {image} is outside the imported folder" in result.stderr
    assert counts(app)["images"] == 0
    for name in refused:
        (site / name).unlink()
    (site / "fine.md").write_text(header.format("Fine", "stays-in.png"))
    assert run(runner, "import", str(site)).exit_code == 0
    assert counts(app)["images"] == 1


def test_problems_never_reach_the_terminal_as_control_characters(runner, tmp_path):
    """A value in a file is printed with its control characters escaped: an ANSI sequence
    cannot clear the screen or draw a fake message over the real one."""
    site = tmp_path / "site"
    site.mkdir()
    # YAML's double-quoted escapes put real control characters into the value.
    trick = '"\\e[2J\\e[HImported 12 posts.\\r\\a"'
    (site / "trick.md").write_text(f"---\ntitle: Trick\ndraft: {trick}\n---\nBody.\n")
    result = run(runner, "import", str(site))
    assert result.exit_code == 1
    assert not any(char in result.stderr for char in "\x1b\r\x07")
    assert "\\x1b[2J\\x1b[HImported 12 posts." in result.stderr


def test_problems_across_files_are_all_reported(runner):
    """Each problem comes as path:line: message, over every file, in file order."""
    result = run(runner, "import", str(DATA / "invalid"))
    assert result.exit_code == 1
    folder = DATA / "invalid"
    assert result.stderr.splitlines()[:4] == [
        f"{folder / 'bad-fields.md'}:3: `date` must be an ISO 8601 date or date-time such as"
        " 2024-01-02 or 2024-01-02T10:20:00Z, not `last tuesday`",
        f"{folder / 'bad-fields.md'}:5: unknown field `layout` (known: title, slug, id,"
        " redirect_from, date, updated, draft, authors, topics, summary, featured, editors_pick,"
        " image, image_alt, illustration, meta_description, social_image; or pass"
        " --ignore-field layout to skip it)",
        f"{folder / 'bad-fields.md'}:6: `featured` must be true or false, not `maybe`",
        f"{folder / 'no-title.md'}:1: `title` is missing",
    ]
    assert "4 problem(s) in 2 file(s); nothing was imported." in result.stderr


def test_ignore_field_skips_a_generator_field(app, runner, tmp_path):
    """--ignore-field lets a site's own fields (like `layout`) through, unread."""
    shutil.copy(DATA / "invalid" / "good.md", tmp_path / "good.md")
    (tmp_path / "good.md").write_text(
        (tmp_path / "good.md").read_text().replace("---\n\n", "Layout: post\n---\n\n", 1)
    )
    assert run(runner, "import", str(tmp_path)).exit_code == 1
    result = run(runner, "import", "--ignore-field", "layout", str(tmp_path))
    assert result.output == "created 1, updated 0, unchanged 0\n"


def test_duplicate_slugs_name_both_files(runner, tmp_path):
    """Two files for one address: the second is reported with where the first is."""
    (tmp_path / "a.md").write_text("---\ntitle: Same name\ndate: 2024-01-01\ntopics: [A]\n---\n")
    (tmp_path / "b.md").write_text(
        "---\ntitle: Other\nslug: same-name\ndate: 2024-01-01\ntopics: [A]\n---\n"
    )
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert (
        f"{tmp_path / 'b.md'}:3: slug `same-name` is also the slug of {tmp_path / 'a.md'}:2"
        in result.stderr
    )


def test_defaults_for_author_and_topic(app, runner, tmp_path):
    """No topics needs --topic; no author credits the site name, or --author."""
    (tmp_path / "bare.md").write_text("---\ntitle: Bare post\ndate: 2024-01-01\n---\nText\n")
    refused = run(runner, "import", str(tmp_path))
    assert refused.exit_code == 1
    assert f"{tmp_path / 'bare.md'}:1: no topics: add `topics:` or pass --topic NAME" in (
        refused.stderr
    )
    assert run(runner, "import", "--topic", "Notes", str(tmp_path)).exit_code == 0
    with app.app_context():
        post = post_named("bare-post")
        assert post.author.name == app.config["SITE_NAME"]
        assert [t.name for t in post.topics] == ["Notes"]
    result = run(runner, "import", "--topic", "Notes", "--author", "Ravi Example", str(tmp_path))
    assert result.output == "created 0, updated 1, unchanged 0\n"
    with app.app_context():
        assert post_named("bare-post").author.name == "Ravi Example"


def test_topics_and_authors_match_existing_rows_by_slug(app, runner, posts, tmp_path):
    """`databases` files under Databases and `ada example` credits Ada Example, like editors."""
    posts.topics("Databases")
    posts.create(1, topics=("Databases",))
    (tmp_path / "p.md").write_text(
        "---\ntitle: Lower case\ndate: 2024-01-01\ntopics: [databases, '++', Databases]\n"
        "author: ada example\n---\n"
    )
    assert run(runner, "import", str(tmp_path)).exit_code == 0
    with app.app_context():
        post = post_named("lower-case")
        assert [t.name for t in post.topics] == ["Databases", "++"]
        assert post.topics[1].slug == store.topic_slug("++") != "topic"
        assert post.author.name == "Ada Example"
        assert db.session.scalar(sa.select(sa.func.count()).select_from(Author)) == 1


def test_same_names_in_other_case_or_spacing_are_the_same_rows(app, runner, posts, tmp_path):
    """`site  RELIABILITY` files under Site Reliability; `ADA  example` is Ada Example."""
    posts.topics("Site Reliability")
    posts.create(1, topics=("Site Reliability",))
    (tmp_path / "p.md").write_text(
        "---\ntitle: Spaced\ndate: 2024-01-01\ntopics: ['site  RELIABILITY']\n"
        "author: ADA  example\n---\n"
    )
    assert run(runner, "import", str(tmp_path)).exit_code == 0
    with app.app_context():
        post = post_named("spaced")
        assert [t.name for t in post.topics] == ["Site Reliability"]
        assert post.author.name == "Ada Example"
        assert counts(app) == {"posts": 2, "topics": 1, "authors": 1, "images": 0}


def test_a_name_without_letters_leaves_real_slugs_to_real_names(app, runner, tmp_path):
    """`++` gets a made-up slug, so a later topic named Topic is not filed under it."""
    (tmp_path / "a.md").write_text("---\ntitle: A\ndate: 2024-01-01\ntopics: ['++']\n---\n")
    (tmp_path / "b.md").write_text("---\ntitle: B\ndate: 2024-01-02\ntopics: [Topic]\n---\n")
    assert run(runner, "import", str(tmp_path)).exit_code == 0
    with app.app_context():
        assert [(t.name, t.slug) for t in post_named("b").topics] == [("Topic", "topic")]
        assert [t.name for t in post_named("a").topics] == ["++"]


def test_an_old_address_that_still_redirects_is_refused(app, runner, posts, tmp_path):
    """A slug that redirects to another post cannot be taken by an imported one."""
    [slug] = posts.create(1, title="Moved post")
    with app.app_context():
        db.session.add(SlugRedirect(old_slug="old-address", post=post_named(slug)))
        db.session.commit()
    (tmp_path / "p.md").write_text(
        "---\ntitle: Squatter\nslug: old-address\ndate: 2024-01-01\ntopics: [A]\n---\n"
    )
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert f"{tmp_path / 'p.md'}:3: slug `old-address` used to belong to “Moved post”" in (
        result.stderr
    )


def test_missing_or_empty_path_is_a_clear_error(runner, tmp_path):
    """A path that does not exist, or holds no Markdown, is refused with a message."""
    missing = run(runner, "import", str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "does not exist" in missing.output
    empty = run(runner, "import", str(tmp_path))
    assert empty.exit_code == 1
    assert f"{tmp_path}:1: no .md or .markdown files here" in empty.stderr


def test_import_looks_rows_up_in_batches(app, runner, tmp_path):
    """Four times the posts do not mean more lookups: existing rows are read in batches."""
    write_files(tmp_path / "small", 10, title="Small")
    write_files(tmp_path / "large", 40, title="Large")
    with count_queries(app) as small:
        assert run(runner, "import", str(tmp_path / "small")).exit_code == 0
    with count_queries(app) as large:
        assert run(runner, "import", str(tmp_path / "large")).exit_code == 0
    selects = [
        [statement for statement in run_ if statement.lstrip().upper().startswith("SELECT")]
        for run_ in (small, large)
    ]
    # The schema check (two statements on PostgreSQL), then one batch each of old addresses,
    # slugs, topics, renamed topics and authors.
    assert len(selects[1]) == len(selects[0]) <= 7, selects


# --- Exporting and round trips --------------------------------------------------------------


def _varied_posts(app) -> None:
    """Posts that use every field in its unusual forms, written through the store."""
    with app.app_context():
        ada, mia = store.author_named("Ada Example"), store.author_named("Mia “Ops” Example")
        topics = [store.topic_named(name) for name in ("Databases", "Operations", "C++ & Rust")]
        png = images.store_image(picture("PNG"))
        gif = images.store_image(picture("GIF", (200, 40, 40)))
        # Lossy formats: noise, so a re-encoding on import would show as changed bytes.
        jpeg = images.store_image(noisy_picture("JPEG"))
        webp = images.store_image(noisy_picture("WEBP", seed=7))
        rows = [
            dict(title="Plain: with a colon", author=ada, topics=topics[:1],
                 published_at=datetime(2024, 1, 2, 3, 4, 5, 678901), image_alt="A blue square"),
            dict(title="yes", slug="yes", author=mia, topics=topics[::-1], summary="null",
                 coauthors=[ada, store.author_named("Smith, Jones and Co")],
                 published_at=datetime(2023, 6, 1), updated_at=datetime(2023, 7, 1, 12, 30),
                 featured=True, editors_pick=True, body="  indented first line\n\n\ttab\n",
                 image_alt="Coloured noise"),
            dict(title="Draft, undated", author=ada, topics=topics[1:2],
                 summary="Line one\nline two:\n  - not a list", body="# Heading\n\n---\n"),
            dict(title="Ünïcödé — “quotes” & <tags>", author=ada, topics=topics,
                 published_at=datetime(2022, 2, 2), image_alt="A red square, quite small",
                 body="```python\nprint('---')\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |"),
            dict(title="Dated draft", author=mia, topics=topics[2:],
                 published_at=datetime(2030, 1, 1), body="", image_alt="More coloured noise"),
        ]  # fmt: skip
        made = [store.new_post(**{"body": "Body.", **row}) for row in rows]
        made[2].status = made[4].status = "draft"
        made[3].image = gif
        made[0].image = png
        made[1].image = jpeg
        made[4].image = webp
        db.session.commit()


def _snapshot(app) -> dict[str, tuple]:
    """Every post as the format sees it, plus its image's content hash."""
    with app.app_context():
        query = sa.select(Post).order_by(Post.slug)
        return {
            post.slug: (transfer.entry_of(post), post.image and post.image.sha256)
            for post in db.session.scalars(query)
        }


def test_round_trip_is_byte_identical(app, runner, tmp_path):
    """Export, import into an empty database, export again: the same bytes, every field kept.

    Images included, in all four formats: a stored image imports as the same bytes.
    """
    _varied_posts(app)
    before = _snapshot(app)
    first = run(runner, "export", str(tmp_path / "first"))
    assert first.exit_code == 0, first.output
    assert "exported 5 posts (2 drafts, 4 images)" in first.output
    empty_database(app)
    imported = run(runner, "import", str(tmp_path / "first"))
    assert imported.output == "created 5, updated 0, unchanged 0\n", imported.output
    assert _snapshot(app) == before
    assert run(runner, "export", str(tmp_path / "second")).exit_code == 0
    assert tree(tmp_path / "second") == tree(tmp_path / "first")
    assert sorted(tree(tmp_path / "first")) == [
        "dated-draft.md",
        "draft-undated.md",
        "images/dated-draft.webp",
        "images/plain-with-a-colon.png",
        "images/unicode-quotes-tags.gif",
        "images/yes.jpg",
        "plain-with-a-colon.md",
        "unicode-quotes-tags.md",
        "yes.md",
    ]
    assert run(runner, "import", str(tmp_path / "second")).output == (
        "created 0, updated 0, unchanged 5\n"
    )


def test_export_file_format(app, runner, tmp_path):
    """Stable key order, UTC dates with Z, defaults left out, drafts marked, image beside."""
    _varied_posts(app)
    run(runner, "export", str(tmp_path))
    assert (tmp_path / "plain-with-a-colon.md").read_text() == (
        "---\n"
        "title: 'Plain: with a colon'\n"
        "slug: plain-with-a-colon\n"
        f"id: {uid_of(app, 'plain-with-a-colon')}\n"
        "date: 2024-01-02T03:04:05.678901Z\n"
        "author: Ada Example\n"
        "topics:\n"
        "- Databases\n"
        "image: images/plain-with-a-colon.png\n"
        "image_alt: A blue square\n"
        "---\n"
        "\n"
        "Body.\n"
    )
    draft = (tmp_path / "draft-undated.md").read_text()
    assert "\ndraft: true\n" in draft and "\ndate:" not in draft
    assert "summary: |-\n  Line one\n  line two:\n    - not a list\n" in draft


def test_co_authors_travel_as_a_list_of_authors(app, runner, tmp_path):
    """Several authors are written `authors:`, a YAML list in order (a name may hold commas
    and "and"); one is written `author:` as before."""
    _varied_posts(app)
    run(runner, "export", str(tmp_path))
    assert (
        "\nauthors:\n- Mia “Ops” Example\n- Ada Example\n- Smith, Jones and Co\ntopics:\n"
        in (tmp_path / "yes.md").read_text()
    )
    assert "\nauthor: Ada Example\ntopics:\n" in (tmp_path / "plain-with-a-colon.md").read_text()


@pytest.mark.parametrize(
    ("header", "credited"),
    [
        ("author: Ada Example", ["Ada Example"]),
        ("author: Smith, Jones and Co", ["Smith, Jones and Co"]),
        ("authors: [Bo Writer, Ada Example]", ["Bo Writer", "Ada Example"]),
        ("authors: Bo Writer, Ada Example", ["Bo Writer", "Ada Example"]),
        ("author: [Bo Writer, Ada Example]", ["Bo Writer", "Ada Example"]),
        ("authors:\n- Ada Example\n- ada  EXAMPLE\n- Bo Writer", ["Ada Example", "Bo Writer"]),
        ("authors: ['Smith, Jones and Co', Ada Example]", ["Smith, Jones and Co", "Ada Example"]),
        ("Authors: [Cy Third]", ["Cy Third"]),
    ],
)
def test_a_file_credits_its_authors_in_order(app, runner, tmp_path, header, credited):
    """`author:` is one name, commas and all; `authors:` (or a list under `author:`) names
    several in order; a name given twice credits one author, at its first place."""
    (tmp_path / "team.md").write_text(
        f"---\ntitle: Team\ndate: 2024-01-01\ntopics: [Ops]\n{header}\n---\n\nBody.\n",
        encoding="utf-8",
    )
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 0, result.output
    with app.app_context():
        post = post_named("team")
        assert [author.name for author in post.authors] == credited
        assert post.author.name == credited[0]
    again = run(runner, "import", str(tmp_path))
    assert again.output == "created 0, updated 0, unchanged 1\n"


def test_reimporting_new_co_authors_updates_the_post(app, runner, posts, tmp_path):
    """A file that adds, reorders or drops authors updates the post's credits."""
    (slug,) = posts.create(1, title="Shared")
    run(runner, "export", str(tmp_path))
    path = tmp_path / f"{slug}.md"
    for header, credited in [
        ("authors: [Bo Writer, Ada Example]", ["Bo Writer", "Ada Example"]),
        ("authors: [Ada Example, Cy Third, Bo Writer]", ["Ada Example", "Cy Third", "Bo Writer"]),
        ("author: Cy Third", ["Cy Third"]),
    ]:
        text = path.read_text(encoding="utf-8")
        start = text.index("\nauthor")
        end = text.index("\ntopics:")
        path.write_text(text[:start] + "\n" + header + text[end:], encoding="utf-8")
        assert run(runner, "import", str(tmp_path)).output == "created 0, updated 1, unchanged 0\n"
        with app.app_context():
            assert [author.name for author in post_named(slug).authors] == credited


def test_import_export_import_keeps_jpeg_images(app, runner, tmp_path):
    """An exported image holds the stored bytes, so importing it again reuses the same row."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "photo.jpg").write_bytes(picture("JPEG"))
    (site / "p.md").write_text(
        "---\ntitle: Photo\ndate: 2024-01-01\ntopics: [A]\nimage: photo.jpg\nimage_alt: Blue\n---\n"
    )
    assert run(runner, "import", str(site)).exit_code == 0
    run(runner, "export", str(tmp_path / "out"))
    assert (tmp_path / "out" / "images" / "photo.jpg").read_bytes().startswith(b"\xff\xd8")
    assert run(runner, "import", str(tmp_path / "out")).output == (
        "created 0, updated 0, unchanged 1\n"
    )
    assert counts(app)["images"] == 1


def test_body_images_travel_with_the_export_to_another_database(app, runner, client, tmp_path):
    """An export writes each stored image a body shows as images/<sha256>.<ext>; imported
    into an empty database, the body shows it at the same address again."""
    with app.app_context():
        photo = images.store_image(picture("PNG"))
        wide = images.store_image(noisy_picture("JPEG"))
        db.session.commit()
        shown = [f"/images/{photo.sha256}.png", f"/images/{wide.sha256}.jpg"]
        stored = {photo.sha256: photo.data, wide.sha256: wide.data}
    site = tmp_path / "site"
    site.mkdir()
    missing = f"/images/{'0' * 64}.png"
    body = f"![A photo]({shown[0]}) and ![noise]({shown[1]}) and ![gone]({missing})"
    (site / "p.md").write_text(f"---\ntitle: Shown\ndate: 2024-01-01\ntopics: [A]\n---\n{body}\n")
    assert run(runner, "import", str(site)).exit_code == 0
    out = tmp_path / "out"
    exported = run(runner, "export", str(out))
    assert "2 images" in exported.output
    written = {path.name: path.read_bytes() for path in (out / "images").iterdir()}
    assert written == {
        f"{digest}.{src[-3:]}": stored[digest] for digest, src in zip(stored, shown, strict=True)
    }
    empty_database(app)
    assert run(runner, "import", str(out)).exit_code == 0
    assert counts(app)["images"] == 2
    for src in shown:
        assert client.get(src).status_code == 200
    assert client.get(missing).status_code == 404
    assert "unchanged 1" in run(runner, "import", str(out)).output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"not an image", "body image images/"),
        (picture("PNG", (200, 10, 10)), "holds another image than its name says"),
    ],
)
def test_a_body_image_file_that_is_not_what_its_name_says_refuses_the_import(
    app, runner, tmp_path, content, message
):
    """A file under images/ named for a hash must hold that image: else nothing imports."""
    digest = "ab" * 32
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / f"{digest}.png").write_bytes(content)
    (tmp_path / "p.md").write_text(
        f"---\ntitle: Shown\ndate: 2024-01-01\ntopics: [A]\n---\n![x](/images/{digest}.png)\n"
    )
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1 and message in result.output
    assert counts(app)["images"] == counts(app)["posts"] == 0


def test_export_rewrites_only_what_changed(app, runner, posts, tmp_path):
    """A second export writes nothing; files it did not write are pointed out, not deleted."""
    posts.create(3)
    run(runner, "export", str(tmp_path))
    (tmp_path / "stray.md").write_text("left over")
    again = run(runner, "export", str(tmp_path))
    assert "0 files written" in again.stdout
    assert "1 other .md file(s)" in again.stderr
    assert (tmp_path / "stray.md").read_text() == "left over"


# --- Old addresses --------------------------------------------------------------------------


def rename(app, slug: str, *new_slugs: str) -> None:
    """Give a stored post each new slug in turn through the editor's save path."""
    with app.app_context():
        post = post_named(slug)
        for new_slug in new_slugs:
            fields = store.PostFields(
                title=post.title,
                slug=new_slug,
                body=post.body_markdown,
                summary=post.summary,
                topics=post.topics,
                author=post.author,
                status=post.status,
                published_at=post.published_at,
                updated_at=post.updated_at,
                keep_updated_date=True,
            )
            store.update_post(post, fields)
            db.session.flush()
        db.session.commit()


def old_addresses(app) -> list[tuple[str, str]]:
    """Every stored old address with the slug of the post it leads to, sorted."""
    with app.app_context():
        query = sa.select(SlugRedirect.old_slug, Post.slug).join(SlugRedirect.post)
        return sorted(tuple(row) for row in db.session.execute(query))


def test_export_and_import_keep_old_addresses(app, runner, client, posts, tmp_path):
    """Old slugs are exported as a sorted `redirect_from` list after `slug` (left out when
    there are none); an empty database given the export redirects each of them again, and
    export, import, export gives the same bytes."""
    moved, still = posts.create(2)
    rename(app, moved, "zeta-name", "alpha-name", "current-name")
    before = old_addresses(app)
    assert before == [(old, "current-name") for old in ("alpha-name", moved, "zeta-name")]
    assert run(runner, "export", str(tmp_path / "first")).exit_code == 0
    text = (tmp_path / "first" / "current-name.md").read_text()
    assert text.startswith(
        f"---\ntitle: Post number 1\nslug: current-name\nid: {uid_of(app, 'current-name')}\n"
        f"redirect_from:\n- alpha-name\n- {moved}\n- zeta-name\ndate: "
    )
    assert "redirect_from" not in (tmp_path / "first" / f"{still}.md").read_text()

    empty_database(app)
    imported = run(runner, "import", str(tmp_path / "first"))
    assert imported.output == "created 2, updated 0, unchanged 0\n", imported.output
    assert old_addresses(app) == before
    for old in ("alpha-name", moved, "zeta-name"):
        response = client.get(f"/posts/{old}")
        assert response.status_code == 301
        assert response.headers["Location"] == "/posts/current-name"
    assert run(runner, "export", str(tmp_path / "second")).exit_code == 0
    assert tree(tmp_path / "second") == tree(tmp_path / "first")


def test_importing_the_same_export_again_changes_nothing(app, runner, posts, tmp_path):
    """Old addresses already stored are not added twice: unchanged, with no error."""
    [slug] = posts.create(1)
    rename(app, slug, "second-name", "third-name")
    before = old_addresses(app)
    assert run(runner, "export", str(tmp_path)).exit_code == 0
    for _ in range(2):
        result = run(runner, "import", str(tmp_path))
        assert result.output == "created 0, updated 0, unchanged 1\n", result.output
        assert old_addresses(app) == before


# --- Permanent ids -------------------------------------------------------------------------

UID = uuid.UUID("5b0e9c2d-7a41-4f6e-8d3c-2e1f0a9b8c7d")


def uids(app) -> dict[str, uuid.UUID]:
    """Every stored post's permanent id, by slug."""
    with app.app_context():
        rows = db.session.execute(sa.select(Post.slug, Post.uid))
        return {slug: uid for slug, uid in rows}


def id_file(folder: Path, slug: str, uid: uuid.UUID | str, body: str = "Body.") -> Path:
    """Write a post file with this slug and `id:` into the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{slug}.md"
    path.write_text(
        f"---\ntitle: Post {slug}\nslug: {slug}\nid: {uid}\ndate: 2024-01-01\ntopics: [A]\n---\n"
        f"\n{body}\n"
    )
    return path


def test_ids_survive_export_then_import_into_an_empty_database(app, runner, posts, tmp_path):
    """Each post keeps its permanent id through export and import, though its database id
    changes (ids are never handed out twice, so the new rows get new numbers)."""
    posts.create(3)
    before = uids(app)
    assert len(set(before.values())) == 3 and all(uid.version == 4 for uid in before.values())
    with app.app_context():
        old_ids = set(db.session.scalars(sa.select(Post.id)))
    assert run(runner, "export", str(tmp_path)).exit_code == 0
    for slug, uid in before.items():
        assert f"\nid: {uid}\n" in (tmp_path / f"{slug}.md").read_text()
    empty_database(app)
    result = run(runner, "import", str(tmp_path))
    assert result.output == "created 3, updated 0, unchanged 0\n", result.output
    assert uids(app) == before
    with app.app_context():
        assert not old_ids & set(db.session.scalars(sa.select(Post.id)))


def test_reimporting_an_export_updates_the_same_posts(app, runner, posts, tmp_path):
    """The same export onto the same posts is unchanged; an edited file updates its post,
    which keeps its id; a file without `id:` updates the post of its slug and keeps its id."""
    first, second = posts.create(2)
    before = uids(app)
    assert run(runner, "export", str(tmp_path)).exit_code == 0
    assert run(runner, "import", str(tmp_path)).output == "created 0, updated 0, unchanged 2\n"
    edited = tmp_path / f"{first}.md"
    edited.write_text(edited.read_text().replace("Some text.", "Other text."))
    bare = tmp_path / f"{second}.md"
    bare.write_text(bare.read_text().replace(f"id: {before[second]}\n", ""))
    result = run(runner, "import", str(tmp_path))
    assert result.output == "created 0, updated 1, unchanged 1\n", result.output
    assert uids(app) == before


def test_a_new_file_with_an_id_creates_its_post_with_that_id(app, runner, tmp_path):
    """A file's id is the new post's id; one without gets a fresh one."""
    id_file(tmp_path, "with-id", str(UID).upper())
    (tmp_path / "without.md").write_text(GOOD)
    assert run(runner, "import", str(tmp_path)).output == "created 2, updated 0, unchanged 0\n"
    stored = uids(app)
    assert stored["with-id"] == UID
    assert stored["fine"] not in (None, UID)


def test_an_id_that_belongs_to_another_post_refuses_the_import(app, runner, posts, tmp_path):
    """A file whose id is a stored post's under another slug takes nothing over: the import
    names that post and saves nothing, the new file's post included."""
    [owner] = posts.create(1, title="The owner")
    before = uids(app)
    id_file(tmp_path, "a-fresh-post", UID)
    path = id_file(tmp_path, "newcomer", before[owner])
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert f"{path}:4: `id` {before[owner]} is the id of “The owner”, stored at `{owner}`;" in (
        result.stderr
    )
    assert "never gives a post's id to another" in result.stderr
    assert "1 problem(s) in 1 file(s); nothing was imported." in result.stderr
    assert uids(app) == before


def test_a_file_cannot_change_the_id_of_the_post_of_its_slug(app, runner, posts, tmp_path):
    """A file whose slug is a stored post's but whose id is another is refused: a post's id
    never changes."""
    [slug] = posts.create(1)
    before = uids(app)
    path = id_file(tmp_path, slug, UID, body="New text.")
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert (
        f"{path}:4: `id` {UID} is not the id of the stored post at `{slug}` ({before[slug]});"
        " an import never changes a post's id"
    ) in result.stderr
    assert uids(app) == before
    with app.app_context():
        assert "New text." not in post_named(slug).body_markdown


def test_swapped_ids_refuse_both_files(app, runner, posts, tmp_path):
    """Two stored posts whose files carry each other's id: both files are refused."""
    first, second = posts.create(2)
    before = uids(app)
    id_file(tmp_path, first, before[second])
    id_file(tmp_path, second, before[first])
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert "2 problem(s) in 2 file(s); nothing was imported." in result.stderr
    assert uids(app) == before


def test_one_id_in_two_files_of_an_import_names_both(app, runner):
    """Two files of one import with the same id (in any case) are refused, the second
    naming the first, before anything is saved."""
    folder = DATA / "duplicate-ids"
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1
    assert result.stderr.splitlines()[0] == (
        f"{folder / 'second.md'}:4: `id` {UID} is also the id of {folder / 'first.md'}:3;"
        " each post has its own"
    )
    assert counts(app)["posts"] == 0


def test_an_id_that_is_not_a_uuid_refuses_the_import(app, runner, tmp_path):
    """A file whose `id:` is not a UUID is refused with the line; --ignore-field id imports it
    with a new id."""
    path = id_file(tmp_path, "numbered", "1234")
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{path}:4: `id` must be a UUID")
    assert counts(app)["posts"] == 0
    result = run(runner, "import", "--ignore-field", "id", str(tmp_path))
    assert result.output == "created 1, updated 0, unchanged 0\n", result.output
    assert uids(app)["numbered"].version == 4


def test_import_adds_old_addresses_through_the_editors_path(app, runner, tmp_path, monkeypatch):
    """A file that lists a new old address updates its post through store.update_post; an
    old address left out of a file is kept (an import adds them, never removes one)."""
    path = tmp_path / "p.md"
    path.write_text("---\ntitle: P\nredirect_from: [first]\ndate: 2024-01-01\ntopics: [A]\n---\n")
    assert run(runner, "import", str(tmp_path)).output == "created 1, updated 0, unchanged 0\n"
    updated = []
    update_post = store.update_post

    def recorded(post, fields, **options):
        updated.append((post.slug, list(fields.old_slugs)))
        update_post(post, fields, **options)

    monkeypatch.setattr(store, "update_post", recorded)
    path.write_text(path.read_text().replace("[first]", "[second, first]"))
    assert run(runner, "import", str(tmp_path)).output == "created 0, updated 1, unchanged 0\n"
    assert updated == [("p", ["second"])]
    assert old_addresses(app) == [("first", "p"), ("second", "p")]
    path.write_text(path.read_text().replace("redirect_from: [second, first]\n", ""))
    assert run(runner, "import", str(tmp_path)).output == "created 0, updated 0, unchanged 1\n"
    assert old_addresses(app) == [("first", "p"), ("second", "p")]


def _post_file(slug: str, redirect_from: str) -> str:
    """A post file whose slug is on line 3 and whose `redirect_from` is on line 4."""
    return (
        f"---\ntitle: {slug}\nslug: {slug}\nredirect_from: {redirect_from}\n"
        "date: 2024-01-01\ntopics: [A]\n---\n"
    )


@pytest.mark.parametrize(
    ("files", "refused", "message"),
    [
        pytest.param(
            {"a.md": _post_file("a", "[b]"), "b.md": _post_file("b", "[]")},
            "a.md",
            "`redirect_from`: `b` is the slug of {b}:3, another post",
            id="another_files_slug",
        ),
        pytest.param(
            {"a.md": _post_file("a", "[shared]"), "b.md": _post_file("b", "[shared]")},
            "b.md",
            "`redirect_from`: `shared` is also listed by {a}:4; an old address leads to one post",
            id="listed_by_two_files",
        ),
        pytest.param(
            {"a.md": _post_file("a", "[moved-post]")},
            "a.md",
            "`redirect_from`: `moved-post` is the address of “Moved post”, another post (an"
            " import matches posts by slug; rename a post in the editor)",
            id="a_stored_posts_slug",
        ),
        pytest.param(
            {"a.md": _post_file("a", "[old-address]")},
            "a.md",
            "`redirect_from`: `old-address` is already an old address of “Moved post”"
            " (now `moved-post`) and leads there; an old address leads to one post",
            id="another_posts_old_address",
        ),
    ],
)
def test_an_old_address_claimed_elsewhere_refuses_the_import(
    app, runner, posts, tmp_path, files, refused, message
):
    """A `redirect_from` entry that is, or leads to, another post refuses the file that lists
    it, at that line, and nothing at all is imported (the good file beside it neither)."""
    [slug] = posts.create(1, title="Moved post", slug="old-address")
    rename(app, slug, "moved-post")
    for name, text in files.items() | {("good.md", _post_file("good", "[good-old]"))}:
        (tmp_path / name).write_text(text)
    before = counts(app)
    result = run(runner, "import", str(tmp_path))
    assert result.exit_code == 1
    expected = message.format(a=tmp_path / "a.md", b=tmp_path / "b.md")
    assert f"{tmp_path / refused}:4: {expected}" in result.stderr.splitlines()
    assert "1 problem(s) in 1 file(s); nothing was imported." in result.stderr
    assert counts(app) == before
    assert old_addresses(app) == [("old-address", "moved-post")]


def test_export_refuses_an_old_address_an_import_would_refuse(app, runner, posts, tmp_path):
    """An old address that is not a slug (stored by other means) would make a file that cannot
    come back: the export says which, and writes nothing."""
    [slug] = posts.create(1)
    with app.app_context():
        db.session.add(SlugRedirect(old_slug="Old Name", post=post_named(slug)))
        db.session.commit()
    result = run(runner, "export", str(tmp_path / "out"))
    assert result.exit_code == 1
    assert "these old addresses are not slugs an import accepts" in result.stderr
    assert "Old Name" in result.stderr
    assert not (tmp_path / "out").exists()


def test_redirect_from_reads_a_list_or_text():
    """A YAML list keeps its order; text is split at commas, like topics."""
    listed = read_post(b"---\ntitle: A\ndate: 2024-01-01\nredirect_from: [c, b]\n---\n", "x")
    assert listed.entry is not None and listed.entry.redirect_from == ["c", "b"]
    text = read_post(b"Title: A\nDate: 2024-01-01\nRedirect_from: old-one, old-two\n\n", "x")
    assert text.entry is not None and text.entry.redirect_from == ["old-one", "old-two"]


# --- The format, file by file ---------------------------------------------------------------

GOOD = "---\ntitle: Fine\ndate: 2024-01-01\ntopics: [A]\n---\n"

PROBLEMS = [
    ("---\ndate: 2024-01-01\ntopics: [A]\n---\n", 1, "`title` is missing"),
    ("---\ntitle: ''\ndate: 2024-01-01\n---\n", 2, "`title` is empty"),
    ("---\ntitle: [a, b]\ndate: 2024-01-01\n---\n", 2, "`title` must be text, not a list"),
    ("---\ntitle: " + "x" * 301 + "\ndate: 2024-01-01\n---\n", 2, "longer than 300 characters"),
    ("---\ntitle: '!!!'\ndate: 2024-01-01\n---\n", 2, "no slug can be made from this title"),
    ("---\ntitle: A\nslug: Not Valid\ndate: 2024-01-01\n---\n", 3, "(like `not-valid`)"),
    ("---\ntitle: A\ndate: 2024-13-01\n---\n", 3, "`date` must be an ISO 8601 date"),
    ("---\ntitle: A\n---\n", 1, "`date` is missing: published posts need one"),
    ("---\ntitle: A\ndraft: false\n---\n", 1, "`date` is missing"),
    ("---\ntitle: A\ndate: 2024-01-01\nupdated: later\n---\n", 4, "`updated` must be an ISO"),
    ("---\ntitle: A\ndate: 2024-01-01\nlastmod: never\n---\n", 4, "`lastmod` must be an ISO"),
    ("---\ntitle: A\ndate: 2024-01-01\ntopics: {a: 1}\n---\n", 4, "a list of names, not a map"),
    ("---\ntitle: A\ndate: 2024-01-01\ntags: [[x]]\n---\n", 4, "`tags` must list names"),
    ("---\ntitle: A\ndate: 2024-01-01\ntopics: ['']\n---\n", 4, "`topics` lists an empty name"),
    ("---\ntitle: A\ndate: 2024-01-01\ntopics: [" + "t" * 81 + "]\n---\n", 4, "than 80 char"),
    ("---\ntitle: A\ndate: 2024-01-01\nauthors: [Ada, '']\n---\n", 4, "`authors` lists an empty"),
    ("---\ntitle: A\ndate: 2024-01-01\nauthors: [[Ada]]\n---\n", 4, "`authors` must list names"),
    ("---\ntitle: A\ndate: 2024-01-01\nauthors: [" + "a, " * 51 + "]\n---\n", 4, "at most 50 au"),
    ("---\ntitle: A\nauthor: Ada\nauthors: [Bo]\ndate: 2024-01-01\n---\n", 4, "both set `author"),
    ("---\ntitle: A\ndate: 2024-01-01\nauthor: " + "a" * 121 + "\n---\n", 4, "than 120 char"),
    ("---\ntitle: A\ndate: 2024-01-01\nfeatured: maybe\n---\n", 4, "`featured` must be true or"),
    ("---\ntitle: A\ndate: 2024-01-01\neditors_pick: 2\n---\n", 4, "`editors_pick` must be tru"),
    ("---\ntitle: A\ndraft: perhaps\n---\n", 3, "`draft` must be true or false"),
    ("---\ntitle: A\nstatus: hidden\n---\n", 3, "`status` must be draft or published"),
    ("---\ntitle: A\ndate: 2024-01-01\nimage: a.png\n---\n", 4, "`image` needs `image_alt`"),
    ("---\ntitle: A\ndate: 2024-01-01\nimage_alt: " + "a" * 501 + "\n---\n", 4, "than 500"),
    ("---\ntitle: A\ndate: 2024-01-01\nlayout: post\n---\n", 4, "unknown field `layout`"),
    ("---\ntitle: A\nTitle: B\ndate: 2024-01-01\n---\n", 3, "`Title` is given twice (first"),
    ("---\ntitle: A\ndate: 2024-01-01\nupdated: 2024-02-01\nmodified: 2024-02-01\n---\n", 5,
     "`updated` and `modified` both set `updated`; keep one"),
    ("---\ntitle: A\ndate: 2024-01-01\nsummary: x\ndescription: y\n---\n", 5, "keep one"),
    ("---\ntitle: A\ndate: 2024-01-01\ntopics: [a]\ntags: [b]\n---\n", 5, "both set `topics`"),
    ("---\ntitle: A\ndate: 2024-01-01\n", 1, "never closed with a `---` line"),
    ("+++\ntitle = 'A'\n+++\n", 1, "TOML front matter (+++) is not supported"),
    ("# Just a heading\n\nText.\n", 1, "no front matter: start the file with a `---` line"),
    ("---\ntitle: A\ndate: 2024-01-01\nsummary: 'open\n---\n", 4, "not valid YAML"),
    ("---\ntitle: A\n  bad: indent\n---\n", 3, "not valid YAML"),
    ("---\n- a list\n---\n", 2, "must be `field: value` lines"),
    ("---\ntitle: \"\\ud800\"\ndate: 2024-01-01\n---\n", 2, "invalid Unicode"),
    ("---\ntitle: A\ndate: 2024-01-01\nsummary: \"bell \x07\"\n---\n", 4, "U+0007 is not all"),
    ("Title: A\nDate: 2024-01-01\nnot a header line\n\nBody\n", 3, "expected a `Key: value`"),
    ("Title: A\nDate: 2024-01-01\nTags: x\nSave_as: a.html\n\nBody\n", 4, "unknown field `Sa"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: [Old Name]\n---\n", 4,
     "`redirect_from`: `Old Name` is not a slug; old addresses are lowercase letters, digits"
     " and hyphens (like `old-name`)"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: [/2019/a.html]\n---\n", 4,
     "`/2019/a.html` is not a slug"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: [a]\n---\n", 4,
     "`redirect_from` lists `a`, the post's own slug: an address cannot lead to itself"),
    ("---\ntitle: A\nslug: b\ndate: 2024-01-01\nredirect_from: [a, b]\n---\n", 5,
     "lists `b`, the post's own slug"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: [x, y, x]\n---\n", 4,
     "`redirect_from` lists `x` twice"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: {x: 1}\n---\n", 4,
     "`redirect_from` must be a list of slugs, not a mapping"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: [[x]]\n---\n", 4,
     "`redirect_from` must list slugs"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: ['']\n---\n", 4,
     "`redirect_from` lists an empty slug"),
    ("---\ntitle: A\ndate: 2024-01-01\nredirect_from: [" + "x" * 201 + "]\n---\n", 4,
     "`redirect_from`: `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...` is longer than 200"),
    ("---\ntitle: A\nid: 42\ndate: 2024-01-01\n---\n", 3,
     "`id` must be a UUID such as 0f8e4c3a-5b1d-4e2f-9a6b-7c8d9e0f1a2b (the post's permanent"
     " id, as `posts export` writes it), not `42`; leave it out, or pass --ignore-field id,"
     " to give the post a new one"),
    ("---\ntitle: A\nid: 5b0e9c2d-7a41-4f6e-8d3c-2e1f0a9b8c7\ndate: 2024-01-01\n---\n", 3,
     "`id` must be a UUID"),
    ("---\ntitle: A\nid: urn:uuid:5b0e9c2d-7a41-4f6e-8d3c-2e1f0a9b8c7d\ndate: 2024-01-01\n---\n",
     3, "`id` must be a UUID"),
    ("---\ntitle: A\nid: '{5b0e9c2d-7a41-4f6e-8d3c-2e1f0a9b8c7d}'\ndate: 2024-01-01\n---\n", 3,
     "`id` must be a UUID"),
    ("---\ntitle: A\nid: [5b0e9c2d-7a41-4f6e-8d3c-2e1f0a9b8c7d]\ndate: 2024-01-01\n---\n", 3,
     "`id` must be a UUID such as 0f8e4c3a-5b1d-4e2f-9a6b-7c8d9e0f1a2b (the post's permanent"
     " id, as `posts export` writes it), not a list"),
    ("---\ntitle: A\nid: {a: 1}\ndate: 2024-01-01\n---\n", 3, "not a mapping"),
    ("---\ntitle: A\nid: 00000000-0000-0000-0000-000000000000\ndate: 2024-01-01\n---\n", 3,
     "`id` is the nil UUID (all zeros), which tells no post apart"),
    ("---\ntitle: A\nid: 5b0e9c2d-7a41-4f6e-8d3c-2e1f0a9b8c7d\nID: 5b0e9c2d-7a41-4f6e-8d3c-"
     "2e1f0a9b8c7d\ndate: 2024-01-01\n---\n", 4, "`ID` is given twice (first on line 3)"),
]  # fmt: skip


@pytest.mark.parametrize("loader", ["SafeLoader", "CSafeLoader"])
@pytest.mark.parametrize(("text", "line", "message"), PROBLEMS)
def test_every_rule_has_a_clear_message(text, line, message, loader, monkeypatch):
    """Each broken rule is reported once, at the line to fix, with either YAML parser."""
    monkeypatch.setattr(frontmatter, "_LOADER", getattr(yaml, loader))
    parsed = read_post(text.encode(), "posts/x.md")
    assert parsed.entry is None
    assert [(p.path, p.line) for p in parsed.problems if message in p.message] == [
        ("posts/x.md", line)
    ], parsed.problems


def test_not_utf8_names_the_line():
    """Bytes that are not UTF-8 are reported with the line they sit on."""
    parsed = read_post(GOOD.encode() + b"\nok\n\xff\xfe broken\n", "x.md")
    assert [str(p) for p in parsed.problems] == [
        "x.md:8: not UTF-8 text (byte 0xff); save it as UTF-8"
    ]


def test_all_problems_of_a_file_are_reported_together():
    """A file with several mistakes lists them all, not just the first."""
    text = "---\ntitle: A\ndate: soon\nfeatured: perhaps\ncolour: blue\n---\n"
    lines = [p.line for p in read_post(text.encode(), "x.md").problems]
    assert lines == [3, 4, 5]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-01-02", datetime(2024, 1, 2)),
        ("2024-01-02 10:20", datetime(2024, 1, 2, 10, 20)),
        ("2024-01-02T10:20:30Z", datetime(2024, 1, 2, 10, 20, 30)),
        ("2024-01-02T10:20:30+02:00", datetime(2024, 1, 2, 8, 20, 30)),
        ("2024-01-02 10:20:30 +0200", datetime(2024, 1, 2, 8, 20, 30)),
        ("2024-01-02T00:30:00-01:00", datetime(2024, 1, 2, 1, 30)),
        ("2024-01-02T10:20:30.123456Z", datetime(2024, 1, 2, 10, 20, 30, 123456)),
    ],
)
def test_dates_are_stored_as_naive_utc(text, expected):
    """Offsets are converted; dates without one are taken as UTC."""
    assert frontmatter.parse_time(text) == expected
    assert frontmatter.parse_time(frontmatter.format_time(expected)) == expected


def test_pelican_header_keys_are_case_insensitive():
    """A fence-less header reads like front matter; Status and Authors map as expected."""
    text = (
        "TITLE: Old post\nDATE: 2020-05-06 07:08\nCATEGORY: Ops\nTAGS: a, b,\nSTATUS: Published\n"
        "AUTHORS: Mia Example\nFeatured: Yes\n\n\nThe body.\n"
    )
    entry = read_post(text.encode(), "x.md").entry
    assert entry == Entry(
        title="Old post",
        slug="old-post",
        author="Mia Example",
        topics=["Ops", "a", "b"],
        published_at=datetime(2020, 5, 6, 7, 8),
        featured=True,
        body="The body.",
    )


def test_published_false_and_status_draft_mean_draft():
    """The generators' other ways of saying draft are understood."""
    for line in ("published: false", "status: draft", "draft: yes"):
        entry = read_post(f"---\ntitle: A\n{line}\n---\n".encode(), "x.md").entry
        assert entry is not None and entry.draft, line


def test_empty_values_count_as_not_given():
    """`date:` or `updated: ~` on a draft is no error; on a published post the date is missing."""
    text = "---\ntitle: A\ndraft: true\ndate:\nupdated: ~\nfeatured:\ntopics:\n---\n"
    entry = read_post(text.encode(), "x.md").entry
    assert entry == Entry(title="A", slug="a", draft=True)
    problems = read_post(b"---\ntitle: A\ndate:\n---\n", "x.md").problems
    assert [p.message for p in problems] == [
        "`date` is missing: published posts need one (or add `draft: true`)"
    ]


def test_body_keeps_its_text_but_not_surrounding_blank_lines():
    """Windows line ends and blank lines around the body are normalized; the rest is kept."""
    text = GOOD.replace("\n", "\r\n") + "\r\n\r\n    code first\r\n\r\n---\r\nafter rule  \r\n\r\n"
    entry = read_post(text.encode(), "x.md").entry
    assert entry.body == "    code first\n\n---\nafter rule"
    assert write_post(entry).endswith("---\n\n    code first\n\n---\nafter rule\n")


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)
_NAME = _TEXT.map(lambda value: store.clean_text(value).strip()).filter(bool)
_SLUG = st.from_regex(r"[a-z0-9][a-z0-9-]{0,30}", fullmatch=True)
_WHEN = st.datetimes(min_value=datetime(1900, 1, 1), max_value=datetime(2200, 1, 1))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.builds(
        Entry,
        title=_NAME,
        slug=_SLUG,
        uid=st.none() | st.uuids(),
        author=_NAME,
        authors=st.lists(_NAME, max_size=4),
        topics=st.lists(_NAME, min_size=1, max_size=3),
        summary=_TEXT.map(lambda value: store.clean_text(value).strip()),
        published_at=_WHEN,
        updated_at=st.none() | _WHEN,
        draft=st.booleans(),
        featured=st.booleans(),
        editors_pick=st.booleans(),
        image_alt=st.none() | _NAME,
        illustration=st.sampled_from(["", "kind: bars; values: 800 ms, 3x; labels: a: b, 'c'"]),
        redirect_from=st.lists(_SLUG, unique=True, max_size=3),
        body=st.text(max_size=200).map(canonical_body),
    ).filter(lambda entry: entry.slug not in entry.redirect_from)
)
def test_any_entry_survives_writing_and_reading(entry):
    """Whatever the text holds (quotes, colons, odd Unicode), a written file reads back as is."""
    data = write_post(entry).encode()
    parsed = read_post(data, "x.md")
    assert parsed.problems == []
    assert parsed.entry == entry
    assert write_post(parsed.entry).encode() == data


def test_engineering_elements_round_trip_unchanged(app, runner, tmp_path):
    """Formulas, diagrams, callouts, figures, code options, tasks, keys and abbreviations:
    the exported file holds the Markdown exactly as typed, and importing it into an empty
    database gives the same body and the same rendered page. (A body's final line break is
    the file format's own, so the body here has none.)"""
    with app.app_context():
        post = store.new_post(
            title="Every element", author=store.author_named("Ada Example"),
            topics=[store.topic_named("Databases")], body=ENGINEERING_BODY.rstrip("\n"),
            published_at=datetime(2025, 5, 1),
        )  # fmt: skip
        db.session.commit()
        before = (post.body_markdown, post.body_html)
    assert "<svg" in before[1] and "<math" in before[1]
    assert run(runner, "export", str(tmp_path / "first")).exit_code == 0
    written = read_post((tmp_path / "first" / "every-element.md").read_bytes(), "x").entry
    assert written.body == before[0] == ENGINEERING_BODY.rstrip("\n")
    empty_database(app)
    assert run(runner, "import", str(tmp_path / "first")).output == (
        "created 1, updated 0, unchanged 0\n"
    )
    with app.app_context():
        again = db.session.scalar(sa.select(Post))
        assert (again.body_markdown, again.body_html) == before
    assert run(runner, "export", str(tmp_path / "second")).exit_code == 0
    assert tree(tmp_path / "second") == tree(tmp_path / "first")


def test_a_draft_without_topics_travels_through_export_and_import(app, runner, posts, tmp_path):
    """A draft with no topic yet is written with `topics: []` and imports back as a draft
    with none (no primary topic), unchanged on a second import; `--topic` still files it,
    and a published post without topics is still refused."""
    with app.app_context():
        post = store.new_post(
            title="Topicless draft",
            body="Only a start.",
            author=store.author_named("Ada"),
            topics=[],
        )
        db.session.commit()
        assert post.status == DRAFT and post.primary_topic_id is None
    assert run(runner, "export", str(tmp_path / "out")).exit_code == 0
    written = (tmp_path / "out" / "topicless-draft.md").read_text()
    assert "\ndraft: true\n" in written and "\ntopics: []\n" in written
    empty_database(app)
    imported = run(runner, "import", str(tmp_path / "out"))
    assert imported.output == "created 1, updated 0, unchanged 0\n", imported.output
    with app.app_context():
        again = post_named("topicless-draft")
        assert (again.status, again.topics, again.primary_topic_id) == (DRAFT, [], None)
    assert run(runner, "import", str(tmp_path / "out")).output == (
        "created 0, updated 0, unchanged 1\n"
    )
    assert run(runner, "import", "--topic", "Notes", str(tmp_path / "out")).exit_code == 0
    with app.app_context():
        assert [topic.name for topic in post_named("topicless-draft").topics] == ["Notes"]

    live = tmp_path / "live"
    live.mkdir()
    (live / "live.md").write_text("---\ntitle: Live\ndate: 2024-01-01\ntopics: []\n---\nText\n")
    refused = run(runner, "import", str(live))
    assert refused.exit_code == 1 and "no topics: add `topics:`" in refused.stderr
