"""authors.yml: author profiles (bio, own link, avatar) carried by `posts export` / `import`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import sqlalchemy as sa
import yaml

from blog.authoring import store
from blog.extensions import db
from blog.media import images
from blog.models import Author, Topic
from blog.transfer import frontmatter
from blog.transfer.profiles import BIO_MAX, FILE_MAX
from tests.transfer.test_files import counts, empty_database, noisy_picture, picture, run, tree

POST = "---\ntitle: {title}\ndate: 2024-01-01\ntopics: [A]\nauthor: {author}\n---\nBody.\n"


def profiles(app) -> dict[str, tuple[str, str | None, bytes | None]]:
    """Every author's name with their bio, link and avatar bytes."""
    with app.app_context():
        rows = db.session.scalars(sa.select(Author).order_by(Author.name))
        return {
            author.name: (
                author.bio,
                author.url,
                author.avatar and author.avatar.data,
            )
            for author in rows
        }


def site(folder: Path, authors_yml: str, *authors: str) -> Path:
    """A folder with a post per author and the given authors.yml."""
    folder.mkdir(parents=True, exist_ok=True)
    for number, author in enumerate(authors):
        (folder / f"p{number}.md").write_text(POST.format(title=f"Post {number}", author=author))
    (folder / "authors.yml").write_text(authors_yml, encoding="utf-8")
    return folder


def test_profiles_survive_export_and_import_into_an_empty_database(app, runner, tmp_path):
    """Bio (several lines), link and avatar bytes come back; a second export is byte-identical;
    an author with a profile and no post comes back too."""
    with app.app_context():
        ada = store.author_named("Ada Example")
        ada.bio = "Writes about databases.\n\nSecond paragraph: with a colon, and “quotes”."
        ada.url = "https://example.com/ada"
        ada.avatar = images.store_image(noisy_picture("JPEG"))
        mia = store.author_named("Mia “Ops” Example")
        mia.avatar = images.store_image(picture("PNG"))
        store.author_named("Quiet Writer")  # no profile: not in authors.yml
        lone = store.author_named("Lone Profile")
        lone.bio = "Has a bio, no posts yet."
        store.topic_named("A").description = "Everything filed under A."
        for number, author in enumerate((ada, mia, store.author_named("Quiet Writer"))):
            store.new_post(
                title=f"Post {number}",
                body="Body.",
                author=author,
                topics=[store.topic_named("A")],
                published_at=None,
            )
        db.session.commit()
    before = profiles(app)
    first = run(runner, "export", str(tmp_path / "first"))
    assert first.exit_code == 0, first.output
    assert "images), 3 author profiles and 1 topic description to" in first.output
    exported = tree(tmp_path / "first")
    assert "images/ada-example.avatar.jpg" in exported
    assert "images/mia-ops-example.avatar.png" in exported
    assert (tmp_path / "first" / "authors.yml").read_text() == (
        "Ada Example:\n"
        "  bio: |-\n"
        "    Writes about databases.\n"
        "\n"
        "    Second paragraph: with a colon, and “quotes”.\n"
        "  url: https://example.com/ada\n"
        "  avatar: images/ada-example.avatar.jpg\n"
        "Lone Profile:\n"
        "  bio: Has a bio, no posts yet.\n"
        "Mia “Ops” Example:\n"
        "  avatar: images/mia-ops-example.avatar.png\n"
    )
    empty_database(app)
    imported = run(runner, "import", str(tmp_path / "first"))
    assert imported.output == (
        "created 3, updated 0, unchanged 0; author profiles: filled 3, unchanged 0;"
        " topic descriptions: filled 1, unchanged 0\n"
    ), imported.output
    assert profiles(app) == before
    assert run(runner, "export", str(tmp_path / "second")).exit_code == 0
    assert tree(tmp_path / "second") == exported
    again = run(runner, "import", str(tmp_path / "first"))
    assert again.output.endswith(
        "author profiles: filled 0, unchanged 3; topic descriptions: filled 0, unchanged 1\n"
    )
    assert counts(app)["images"] == 2


def test_import_fills_empty_fields_and_keeps_the_sites_own(app, runner, tmp_path):
    """A field the site already has stays; an empty one is filled; nothing else changes."""
    with app.app_context():
        ada = store.author_named("Ada Example")
        ada.bio = "The site's own bio."
        db.session.commit()
    folder = site(
        tmp_path,
        "ada example:\n  bio: The file's bio.\n  url: http://example.org/ada\n",
        "Ada Example",
    )
    result = run(runner, "import", str(folder))
    assert result.exit_code == 0, result.output
    assert "author profiles: filled 1, unchanged 0" in result.stdout
    assert result.stderr == (
        "1 author kept the site's own bio, link or avatar where authors.yml gives another:"
        " Ada Example\n"
    )
    assert profiles(app) == {"Ada Example": ("The site's own bio.", "http://example.org/ada", None)}


def test_the_author_block_shows_an_imported_bio(app, runner, client, tmp_path):
    """Imported profiles reach readers: the author page and the post show the bio."""
    folder = site(tmp_path, "Ada Example:\n  bio: Ada tends the databases.\n", "Ada Example")
    assert run(runner, "import", str(folder)).exit_code == 0
    assert "Ada tends the databases." in client.get("/authors/ada-example").text
    assert "Ada tends the databases." in client.get("/posts/post-0").text


LONG_BIO = "word " * 40_000  # 200,000 characters

BAD_FILES = [
    (f"Ada Example:\n  bio: {LONG_BIO}\n", 2, f"`bio` is longer than {BIO_MAX} characters"),
    ("Ada Example:\n  url: javascript:alert(1)\n", 2, "`url` must be a web address"),
    ("Ada Example:\n  url: ' JaVaScRiPt:alert(1)'\n", 2, "`url` must be a web address"),
    ("Ada Example:\n  url: data:text/html,hi\n", 2, "`url` must be a web address"),
    ("Ada Example:\n  url: /about\n", 2, "`url` must be a web address"),
    ("Ada Example:\n  url: https://\n", 2, "`url` must be a web address"),
    ("Ada Example:\n  url: https://example.com/a b\n", 2, "`url` must be a web address"),
    ('Ada Example:\n  url: "https://example.com/\\tx"\n', 2, "`url` must be a web address"),
    (f"Ada Example:\n  url: https://example.com/{'a' * 600}\n", 2, "`url` is longer than 500"),
    ("Ada Example:\n  bio: One.\nAda Example:\n  bio: Two.\n", 3,
     "`Ada Example` is the same author as `Ada Example` on line 1"),
    ("Ada Example:\n  bio: One.\nADA  example:\n  bio: Two.\n", 3, "same author as"),
    ("Ada Example:\n  bio: One.\n  bio: Two.\n", 3, "`bio` is given twice for `Ada Example`"),
    ("Ada Example:\n  twitter: '@ada'\n", 2, "unknown field `twitter` for `Ada Example`"),
    ("Ada Example:\n  Bio: Capitalized.\n", 2, "unknown field `Bio`"),
    ("Ada Example:\n  <<: {bio: merged}\n", 2, "unknown field `<<`"),
    ("- Ada Example\n- Mia Example\n", 1, "must be `Author name:` lines"),
    ("just some text\n", 1, "must be `Author name:` lines"),
    ("Ada Example: a bio given directly\n", 1, "must be followed by `bio`, `url` or `avatar`"),
    ("Ada Example:\n  bio: [a, list]\n", 2, "`bio` must be text"),
    ("? [a, b]\n: {bio: x}\n", 1, "each entry must start with an author's name"),
    (f"{'A' * 200}:\n  bio: x\n", 1, "is longer than 120 characters"),
    ("Ada Example:\n  bio: 'unclosed\n", 3, "authors.yml is not valid YAML"),
    ("Ada Example:\n  bio: \x07bell\n", 2, "character U+0007 is not allowed in authors.yml"),
    ("Ada Example:\n  avatar: missing.png\n", 2, "`avatar`: cannot read missing.png"),
    ("Ada Example:\n  avatar: ../outside.png\n", 2, "is outside the imported folder"),
    ("Ada Example:\n  avatar: p0.md\n", 2, "`avatar` p0.md:"),
]  # fmt: skip


@pytest.mark.parametrize(("text", "line", "message"), BAD_FILES)
def test_a_bad_authors_file_refuses_the_whole_import(app, runner, tmp_path, text, line, message):
    """Each broken rule names authors.yml and the line to fix; no post, author or image is kept."""
    folder = site(tmp_path / "site", text, "Ada Example")
    (tmp_path / "outside.png").write_bytes(picture("PNG"))
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1, result.output
    assert f"{folder / 'authors.yml'}:{line}: " in result.output
    assert message in result.output, result.output
    assert "nothing was imported" in result.output
    assert counts(app) == {"posts": 0, "topics": 0, "authors": 0, "images": 0}


def test_a_non_utf8_or_huge_authors_file_is_refused_unparsed(app, runner, tmp_path):
    """Bytes that are not UTF-8, or a file past the size limit, are refused before YAML."""
    folder = site(tmp_path / "a", "", "Ada Example")
    (folder / "authors.yml").write_bytes(b"Ada Example:\n  bio: caf\xe9\n")
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1 and "authors.yml:2: not UTF-8 text" in result.output
    (folder / "authors.yml").write_bytes(b"#" * (FILE_MAX + 1))
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1 and "authors.yml:1: is larger than" in result.output
    assert counts(app)["posts"] == 0


def test_nested_aliases_are_never_expanded(app, runner, tmp_path):
    """A "billion laughs" file is refused at once: aliases stay shared nodes, never copies."""
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [{', '.join([f'*a{n - 1}'] * 10)}]" for n in range(1, 10)]
    lines += ["Ada Example:", "  bio: *a9", "Mia Example: *a9"]
    folder = site(tmp_path, "\n".join(lines) + "\n", "Ada Example")
    started = time.perf_counter()
    result = run(runner, "import", str(folder))
    assert time.perf_counter() - started < 2
    assert result.exit_code == 1
    assert "authors.yml:1: `a0` must be followed by `bio`" in result.output
    assert "authors.yml:12: `bio` must be text" in result.output
    assert "`Mia Example` must be followed by" in result.output


def test_an_alias_to_a_scalar_or_profile_is_read_once_per_use(app, runner, tmp_path):
    """Aliases are plain YAML: a shared bio is given to each author that points at it."""
    folder = site(
        tmp_path,
        "Ada Example: &p\n  bio: &b Shared words.\nMia Example: *p\nLee Example:\n  bio: *b\n",
        "Ada Example",
    )
    assert run(runner, "import", str(folder)).exit_code == 0
    assert {name: bio for name, (bio, _, _) in profiles(app).items()} == {
        "Ada Example": "Shared words.",
        "Lee Example": "Shared words.",
        "Mia Example": "Shared words.",
    }


def test_an_empty_authors_file_or_entry_changes_nothing(app, runner, tmp_path):
    """An empty file, a name with nothing under it, empty values: nothing to fill."""
    folder = site(tmp_path, "# nothing yet\n", "Ada Example")
    assert run(runner, "import", str(folder)).output == (
        "created 1, updated 0, unchanged 0; author profiles: filled 0, unchanged 0\n"
    )
    (folder / "authors.yml").write_text("Ada Example:\nMia Example:\n  bio:\n  url: ''\n")
    result = run(runner, "import", str(folder))
    assert result.output.endswith("author profiles: filled 0, unchanged 2\n"), result.output
    assert profiles(app) == {"Ada Example": ("", None, None), "Mia Example": ("", None, None)}


def test_a_bad_avatar_image_refuses_the_import(app, runner, tmp_path):
    """An avatar file that is not an image is named with its line; nothing is imported."""
    folder = site(tmp_path, "Ada Example:\n  avatar: images/ada.png\n", "Ada Example")
    (folder / "images").mkdir()
    (folder / "images" / "ada.png").write_bytes(b"not an image")
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1
    assert "authors.yml:2: `avatar` images/ada.png:" in result.output
    assert counts(app) == {"posts": 0, "topics": 0, "authors": 0, "images": 0}


@pytest.mark.parametrize("loader", ["SafeLoader", "CSafeLoader"])
def test_a_lone_surrogate_is_refused_by_either_parser(app, runner, tmp_path, monkeypatch, loader):
    """A YAML escape can make text that is not Unicode: refused, never stored."""
    monkeypatch.setattr(frontmatter, "_LOADER", getattr(yaml, loader))
    folder = site(tmp_path, 'Ada Example:\n  bio: "\\ud800"\n', "Ada Example")
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1
    assert "authors.yml:2: " in result.output
    assert counts(app)["authors"] == 0


# --- topics.yml -----------------------------------------------------------------------------


def descriptions(app) -> dict[str, str]:
    """Every topic's name with its description, in filter order."""
    with app.app_context():
        rows = db.session.execute(sa.select(Topic.name, Topic.description).order_by(Topic.position))
        return {name: description for name, description in rows}


def test_topic_descriptions_survive_export_and_import_into_an_empty_database(app, runner, tmp_path):
    """topics.yml holds the described topics in filter order; they come back, byte for byte."""
    with app.app_context():
        databases, operations, _plain = (
            store.topic_named(name) for name in ("Databases", "Operations", "Plain")
        )
        databases.description = "Indexes, vacuum and the nights they cost us.\n\nSecond line."
        operations.description = "On-call: yes, no, null and other YAML words."
        store.new_post(
            title="Post", body="Body.", author=store.author_named("Ada Example"),
            topics=[databases, operations, _plain], published_at=None,
        )  # fmt: skip
        store.topic_named("Unused but described").description = "Kept without posts."
        db.session.commit()
    before = descriptions(app)
    first = run(runner, "export", str(tmp_path / "first"))
    assert "and 3 topic descriptions to" in first.output, first.output
    assert (tmp_path / "first" / "topics.yml").read_text() == (
        "Databases:\n"
        "  description: |-\n"
        "    Indexes, vacuum and the nights they cost us.\n"
        "\n"
        "    Second line.\n"
        "Operations:\n"
        "  description: 'On-call: yes, no, null and other YAML words.'\n"
        "Unused but described:\n"
        "  description: Kept without posts.\n"
    )
    assert not (tmp_path / "first" / "authors.yml").exists()
    empty_database(app)
    imported = run(runner, "import", str(tmp_path / "first"))
    assert imported.output == (
        "created 1, updated 0, unchanged 0; topic descriptions: filled 3, unchanged 0\n"
    ), imported.output
    assert descriptions(app) == before
    assert run(runner, "export", str(tmp_path / "second")).exit_code == 0
    assert tree(tmp_path / "second") == tree(tmp_path / "first")


def test_a_topic_description_fills_only_an_empty_one(app, runner, tmp_path):
    """The site's own description stays, and is named; an empty one is filled."""
    with app.app_context():
        store.topic_named("A").description = "The site's words."
        db.session.commit()
    folder = site(tmp_path, "", "Ada Example")
    (folder / "topics.yml").write_text(
        "a:\n  description: The file's words.\nB:\n  description: New.\n"
    )
    result = run(runner, "import", str(folder))
    assert result.stdout.endswith(
        "; author profiles: filled 0, unchanged 0; topic descriptions: filled 1, unchanged 1\n"
    ), result.output
    assert descriptions(app) == {"A": "The site's words.", "B": "New."}


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("A:\n  description: " + "x" * 501 + "\n", 2, "`description` is longer than 500"),
        ("A:\n  bio: Topics have none.\n", 2, "unknown field `bio` for `A` (known: description)"),
        ("Databases:\n  description: a\ndatabases:\n  description: b\n", 3,
         "`databases` is the same topic as `Databases` on line 1"),
        ("[Databases]\n", 1, "must be `Topic name:` lines, each followed by the topic's"),
        ("A: words\n", 1, "`A` must be followed by `description` lines"),
        ("? [x]\n: {description: y}\n", 1, "each entry must start with a topic's name"),
    ],
)  # fmt: skip
def test_a_bad_topics_file_refuses_the_whole_import(app, runner, tmp_path, text, line, message):
    """topics.yml follows authors.yml's rules: any problem names the line; nothing is kept."""
    folder = site(tmp_path, "", "Ada Example")
    (folder / "topics.yml").write_text(text)
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1
    assert f"{folder / 'topics.yml'}:{line}: {message}" in result.output, result.output
    assert counts(app) == {"posts": 0, "topics": 0, "authors": 0, "images": 0}


def test_an_export_empties_the_files_of_profiles_now_gone(app, runner, tmp_path):
    """Exporting again after every bio and description was cleared leaves empty files, so
    importing the folder brings nothing back."""
    with app.app_context():
        author = store.author_named("Ada Example")
        author.bio = "Soon gone."
        store.topic_named("A").description = "Soon gone too."
        store.new_post(title="P", body="B.", author=author, topics=[store.topic_named("A")])
        db.session.commit()
    assert run(runner, "export", str(tmp_path)).exit_code == 0
    with app.app_context():
        store.author_named("Ada Example").bio = ""
        store.topic_named("A").description = ""
        db.session.commit()
    assert "2 files written" in run(runner, "export", str(tmp_path)).output
    assert (tmp_path / "authors.yml").read_text() == (tmp_path / "topics.yml").read_text() == "{}\n"
    empty_database(app)
    assert "author profiles: filled 0, unchanged 0" in run(runner, "import", str(tmp_path)).output
    assert profiles(app) == {"Ada Example": ("", None, None)}
    assert descriptions(app) == {"A": ""}
