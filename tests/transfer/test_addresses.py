"""addresses.yml carries old paths through export and import: a moved blog's old links keep
working in the next database too."""

from __future__ import annotations

from pathlib import Path

import yaml

from blog.transfer.addresses import ADDRESSES_FILE
from tests.transfer.test_files import counts, empty_database

DATA = Path(__file__).parents[1] / "data" / "transfer"


def run(runner, *args: str):
    """Invoke `flask posts ...`."""
    return runner.invoke(args=["posts", *args])


def test_old_paths_move_with_export_and_import(app, runner, client, tmp_path):
    """Export writes each post's old paths; importing the export into an empty database
    brings them back, and importing it again adds nothing."""
    assert run(runner, "import", str(DATA / "zola-site")).exit_code == 0
    out = tmp_path / "export"
    exported = run(runner, "export", str(out))
    assert exported.exit_code == 0, exported.output
    assert "5 old address(es) from moved sites" in exported.output
    listed = yaml.safe_load((out / ADDRESSES_FILE).read_text())
    assert listed["tuning-the-queue"] == [
        "/2023/04/02/tuning-the-queue",
        "/notes/crane-queue",
        "/blog/old-queue",
    ]
    empty_database(app)
    imported = run(runner, "import", str(out))
    assert imported.exit_code == 0, imported.output
    assert "old addresses: added 5" in imported.output
    response = client.get("/notes/crane-queue/")
    assert response.status_code == 301
    assert response.headers["Location"] == "/posts/tuning-the-queue"
    again = run(runner, "import", str(out))
    assert "unchanged 3" in again.output and "old addresses: added 0" in again.output


def test_export_without_old_paths_writes_no_file(app, runner, posts, tmp_path):
    """A site with no moved posts gets no addresses.yml."""
    posts.create(1)
    out = tmp_path / "export"
    assert run(runner, "export", str(out)).exit_code == 0
    assert not (out / ADDRESSES_FILE).exists()


def test_a_bad_addresses_file_refuses_the_import(app, runner, tmp_path):
    """addresses.yml is checked before any post is saved, its problems named by line."""
    folder = tmp_path / "posts"
    folder.mkdir()
    (folder / "a.md").write_text(
        "---\ntitle: A\ndate: 2024-01-02\ntopics: [T]\n---\n\nText.\n", encoding="utf-8"
    )
    (folder / ADDRESSES_FILE).write_text(
        "a:\n  - /old/a/\n  - /old/a.html\nNot A Slug:\n  - /x\nb: /y\n", encoding="utf-8"
    )
    result = run(runner, "import", str(folder))
    assert result.exit_code == 1
    shown = str(folder / ADDRESSES_FILE)
    assert f"{shown}:3: `/old/a.html` is not" not in result.output
    assert f"{shown}:3: /old/a is listed twice (also under `a`)" in result.output
    assert f"{shown}:4: each entry must be a post's slug" in result.output
    assert f"{shown}:6: `b` must list paths" in result.output
    assert counts(app)["posts"] == 0
