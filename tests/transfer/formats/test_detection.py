"""Which generator wrote a folder is told from what it holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from blog.transfer.formats import detection

DATA = Path(__file__).parents[2] / "data" / "transfer"


@pytest.mark.parametrize(
    ("folder", "kind", "content"),
    [
        ("zola-site", detection.ZOLA, "content"),
        ("hugo-site", detection.HUGO, "content"),
        ("static-site", detection.FIELDNOTES, ""),
        ("invalid", detection.FIELDNOTES, ""),
        ("zola-site/content", detection.MARKDOWN, ""),
        ("hugo-site/content/posts", detection.MARKDOWN, ""),
    ],
)
def test_sites_are_told_apart(folder, kind, content):
    """Each fixture is read by the reader of its generator, from its content folder."""
    found = detection.detect(DATA / folder)
    assert found.kind == kind
    assert found.content == DATA / folder / content if content else DATA / folder


def test_single_files(tmp_path):
    """A file with TOML front matter is a Hugo or Zola page; an .xml file a WordPress export;
    a Fieldnotes file stays Fieldnotes'."""
    toml = tmp_path / "a.md"
    toml.write_text('+++\ntitle = "A"\n+++\n')
    export = tmp_path / "site.xml"
    export.write_text("<rss/>")
    assert detection.detect(toml).kind == detection.MARKDOWN
    assert detection.detect(export).kind == detection.WORDPRESS
    assert detection.detect(DATA / "example.md").kind == detection.FIELDNOTES


def test_jekyll_root(tmp_path):
    """A folder with _config.yml or _posts/ is a Jekyll site."""
    (tmp_path / "_posts").mkdir()
    assert detection.detect(tmp_path).kind == detection.JEKYLL
