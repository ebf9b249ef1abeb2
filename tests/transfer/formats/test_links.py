"""Hugo's `[permalinks]` give each post's old address; its `ref`/`relref` shortcodes and
Zola's `@/` links become links to the imported posts (or a section's topic); hostile patterns
and links are refused, with their line."""

from __future__ import annotations

from pathlib import Path

import pytest

from blog.transfer.formats import detection, hugo_zola

CONFIG = """baseURL = "https://ovens.example/"
title = "Ovens"

[permalinks]
  posts = "/:year/:month/:slug/"
  notes = "/notes/:filename/"
"""
POSTS = {
    "posts/2021-05-06-bread.md": (
        "---\ntitle: Bread at dawn\ndate: 2021-05-06T01:00:00+02:00\ntags: [Baking]\n---\n\n"
        'Knead first. See [the oven notes]({{< ref "notes/oven-temps.md" >}})\n'
        'and [proofing]({{< relref "proofing#times" >}}), [above]({{< ref "#top" >}}).\n'
    ),
    "posts/proofing/index.md": (
        '+++\ntitle = "Proofing"\ndate = 2021-06-01\nslug = "proofing-dough"\n'
        'tags = ["Baking"]\n+++\n\nWait. Back to [bread]({{% ref "/posts/2021-05-06-bread" %}}).\n'
    ),
    "notes/oven-temps.md": (
        "---\ntitle: Oven temperatures\ndate: 2021-07-01\ntags: [Ovens]\n---\n\nHot.\n"
    ),
    "about.md": "---\ntitle: About\n---\n\nUs.\n",
}


def write_site(root: Path, config: str = CONFIG, name: str = "hugo.toml") -> Path:
    """A Hugo site with a configuration and the posts above."""
    root.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(config)
    for relative, text in POSTS.items():
        path = root / "content" / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def read(root: Path):
    """The site read, its posts by slug."""
    site = hugo_zola.read_site(detection.detect(root))
    return site, {post.entry.slug: post for post in site.posts}


def test_permalinks_give_each_post_its_old_address(tmp_path):
    """Each section's pattern, filled from the post's date as written (no move to UTC), its
    slug (or title) and its file's name."""
    site, posts = read(write_site(tmp_path / "site"))
    assert site.problems == []
    assert posts["bread"].old_paths == ["/2021/05/bread-at-dawn"]
    assert posts["proofing-dough"].old_paths == ["/2021/06/proofing-dough"]
    assert posts["oven-temps"].old_paths == ["/notes/oven-temps"]


@pytest.mark.parametrize(
    ("name", "config"),
    [
        ("hugo.yaml", "baseURL: https://ovens.example/\npermalinks:\n  posts: /:year/:slug/\n"),
        ("hugo.json", '{"baseURL": "x", "permalinks": {"posts": "/:year/:slug/"}}'),
        ("hugo.toml", 'baseURL = "x"\n[permalinks.page]\nposts = "/:year/:slug/"\n'),
    ],
)
def test_permalinks_in_yaml_json_and_hugos_newer_table(tmp_path, name, config):
    """YAML and JSON configurations, and `[permalinks.page]`, are read alike."""
    site, posts = read(write_site(tmp_path / "site", config, name))
    assert site.problems == []
    assert posts["bread"].old_paths == ["/2021/bread-at-dawn"]
    assert posts["oven-temps"].old_paths == ["/notes/oven-temps"]  # no pattern: its place


def test_refs_become_links_to_the_imported_posts(tmp_path):
    """A ref by path from content/, beside the page, to a bundle, with an anchor, and to the
    page's own anchor; none is left as written or counted."""
    site, posts = read(write_site(tmp_path / "site"))
    body = posts["bread"].entry.body
    assert "[the oven notes](/posts/oven-temps)" in body
    assert "[proofing](/posts/proofing-dough#times)" in body
    assert "[above](#top)" in body
    assert "[bread](/posts/bread)" in posts["proofing-dough"].entry.body
    assert not site.left


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ('"/../:slug/"', "`/../:slug/` climbs out of the site with `..`"),
        ('"/:year/:nosuch/"', "`:nosuch` is not a token Hugo knows"),
        ('"/a?b=:slug"', "`/a?b=:slug` holds characters an address pattern cannot"),
        ('["/:slug/"]', "must be an address pattern"),
    ],
)
def test_a_hostile_permalink_pattern_is_refused(tmp_path, pattern, message):
    """A pattern that climbs out, names an unknown token or is not an address refuses the
    import, named at its line in the configuration."""
    config = CONFIG.replace('"/:year/:month/:slug/"', pattern)
    root = write_site(tmp_path / "site", config)
    site, _ = read(root)
    [problem] = site.problems
    assert (problem.path, problem.line) == (str(root / "hugo.toml"), 4)
    assert problem.message == f"`permalinks` posts: {message}"


@pytest.mark.parametrize(
    ("ref", "message"),
    [
        ('"notes/gone.md"', "no post of the imported site has this path"),
        ('"../../../../etc/passwd"', "leads outside the site's content folder"),
        ('"/broken.md"', "names a file that is refused for its own problems (listed with it)"),
    ],
)
def test_a_ref_to_nothing_imported_refuses_its_post(tmp_path, ref, message):
    """A ref to a missing post, to a page that is not imported or out of the site refuses
    its post, named at the shortcode's line; the other posts still read."""
    root = write_site(tmp_path / "site")
    path = root / "content" / "notes" / "oven-temps.md"
    path.write_text(path.read_text() + f"\n\nSee [x]({{{{< ref {ref} >}}}}).\n")
    (root / "content" / "broken.md").write_text("---\ntitle: [unclosed\n---\n")
    site, posts = read(root)
    problem = next(problem for problem in site.problems if problem.path == str(path))
    assert (problem.path, problem.line) == (str(path), 10)
    assert problem.message == f"`{{{{< ref {ref} >}}}}` {message}"
    assert sorted(posts) == ["bread", "proofing-dough"]


ZOLA = {
    "config.toml": 'base_url = "https://docks.example"\n',
    "content/blog/_index.md": '+++\ntitle = "Dock notes"\n+++\n',
    "content/blog/cranes.md": (
        '+++\ntitle = "Cranes"\ndate = 2022-03-01\n+++\n\n'
        "See [the tides](@/blog/tides.md#spring) and [every note](@/blog/_index.md).\n\n"
        '<a href="@/blog/tides.md">tides</a>, and [the log][log].\n\n'
        "[log]: @/blog/tides.md\n"
    ),
    "content/blog/tides.md": '+++\ntitle = "Tides"\ndate = 2022-03-02\n+++\n\nLow at six.\n',
}


def zola_site(root: Path) -> Path:
    """A Zola site whose posts link to each other and to their section with `@/` links."""
    for relative, text in ZOLA.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_zola_links_become_links_here(tmp_path):
    """`@/` links in Markdown, HTML and reference definitions lead to the imported post,
    anchors kept; a section's link leads to the topic its title gives."""
    site, posts = read(zola_site(tmp_path / "docks"))
    assert site.problems == [] and site.kind == detection.ZOLA
    body = posts["cranes"].entry.body
    assert "[the tides](/posts/tides#spring)" in body
    assert "[every note](/topics/dock-notes)" in body
    assert '<a href="/posts/tides">tides</a>' in body
    assert "[log]: /posts/tides" in body


def test_a_zola_link_to_nothing_imported_refuses_its_post(tmp_path):
    """An `@/` link to a missing file refuses its post at the link's line."""
    root = zola_site(tmp_path / "docks")
    tides = root / "content" / "blog" / "tides.md"
    tides.write_text(tides.read_text() + "\nOlder: [gone](@/blog/gone.md).\n")
    site, posts = read(root)
    assert [str(problem) for problem in site.problems] == [
        f"{tides}:8: `@/blog/gone.md` no post of the imported site has this path"
    ]
    assert sorted(posts) == ["cranes"]


def test_a_link_to_a_page_not_imported_leads_to_the_old_site(tmp_path):
    """A ref to a page that is not a post leads to its place on the old site (`baseURL`);
    read without the site's configuration, where that is unknown, it refuses its post."""
    root = write_site(tmp_path / "site")
    note = root / "content" / "notes" / "oven-temps.md"
    note.write_text(note.read_text() + '\nSee [us]({{< ref "/about.md" >}}).\n')
    _, posts = read(root)
    assert "[us](https://ovens.example/about/)" in posts["oven-temps"].entry.body
    site, posts = read(root / "content")
    [problem] = site.problems
    assert problem.path == str(note) and "names a page that is not a post" in problem.message


def test_permalinks_in_hugos_configuration_folder(tmp_path):
    """A site configured in `config/_default/` is told as Hugo; `permalinks.toml` there adds
    patterns, a section the root configuration names keeping its own."""
    root = write_site(tmp_path / "site", 'baseURL = "https://ovens.example/"\n')
    (root / "hugo.toml").unlink()
    folder = root / "config" / "_default"
    folder.mkdir(parents=True)
    (folder / "hugo.toml").write_text('baseURL = "https://ovens.example/"\n')
    (folder / "permalinks.toml").write_text('posts = "/:year/:slug/"\nnotes = "/n/:filename/"\n')
    site, posts = read(root)
    assert site.kind == detection.HUGO and site.problems == []
    assert posts["bread"].old_paths == ["/2021/bread-at-dawn"]
    assert posts["oven-temps"].old_paths == ["/n/oven-temps"]
    (root / "hugo.toml").write_text('[permalinks]\nposts = "/p/:slug/"\n')
    _, posts = read(root)
    assert posts["bread"].old_paths == ["/p/bread-at-dawn"]
    assert posts["oven-temps"].old_paths == ["/n/oven-temps"]
