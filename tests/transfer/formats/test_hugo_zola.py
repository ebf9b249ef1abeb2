"""Hugo and Zola content trees read into entries: front matter, sections, bundles, dates."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from pathlib import Path

import pytest

from blog.transfer.formats import detection, hugo_zola
from blog.transfer.formats.site import HeaderError, read_header

DATA = Path(__file__).parents[2] / "data" / "transfer"


def site_of(path: Path, **options):
    """The site read from a folder."""
    return hugo_zola.read_site(detection.detect(path), **options)


def by_slug(site) -> dict:
    """The site's posts by slug."""
    return {post.entry.slug: post for post in site.posts}


def test_zola_site():
    """TOML front matter, a date from the file name, three authors, taxonomies, `path` and
    aliases as old addresses, a bundle named after its folder, a draft."""
    site = site_of(DATA / "zola-site")
    assert site.problems == []
    posts = by_slug(site)
    assert sorted(posts) == ["half-written", "lighthouse", "tuning-the-queue"]
    queue = posts["tuning-the-queue"]
    assert queue.entry.title == "Tuning the crane queue"
    assert queue.entry.published_at == datetime(2023, 4, 2)
    assert queue.entry.summary == "How we stopped the morning backlog at berth four."
    assert queue.authors == ["Mira Holt", "Jonas Weld", "Tessa Ring"]
    assert queue.entry.author == "Mira Holt"
    assert queue.entry.topics == ["Cranes", "Queues"]
    assert queue.old_paths == [
        "/2023/04/02/tuning-the-queue",
        "/notes/crane-queue",
        "/blog/old-queue",
    ]
    assert "<!-- more -->" not in queue.entry.body
    light = posts["lighthouse"]
    assert light.entry.published_at == datetime(2023, 6, 11, 6, 30)
    assert light.entry.updated_at == datetime(2023, 6, 20)
    assert light.entry.topics == ["Electrics", "Lights"]
    assert light.old_paths == ["/blog/lighthouse"]
    assert light.base == DATA / "zola-site" / "content" / "blog" / "lighthouse"
    assert posts["half-written"].entry.draft
    # A section's page and an undated page at the top are not posts; unknown fields counted.
    assert len(site.skipped) == 3
    assert any("about.md" in line for line in site.skipped)
    assert site.ignored == {"weight": 1, "template": 1, "extra.toc": 1}
    assert site.static == [(DATA / "zola-site" / "static").resolve()]


def test_hugo_site():
    """YAML and TOML side by side, `lastmod`, `url`, aliases, `params.author`, and the
    section's title as the topic of a post that lists none."""
    site = site_of(DATA / "hugo-site")
    assert site.problems == []
    posts = by_slug(site)
    first = posts["first-light"]
    assert first.entry.topics == ["Operations", "Boilers", "Mornings"]
    assert first.entry.updated_at == datetime(2022, 11, 7, 10)
    assert first.authors == ["Pia Sund"]
    # Its Hugo address, /posts/first-light/, is its address here too: not an old one.
    assert first.old_paths == ["/2022/11/first-light", "/old/first-light"]
    cold = posts["cold-start"]
    assert cold.entry.topics == ["Boiler logs"]
    assert cold.authors == ["Pia Sund"]
    assert cold.old_paths == ["/procedures/cold-start"]
    assert posts["unfinished"].entry.draft
    assert site.ignored == {"layout": 2, "toc": 1}


def test_strict_refuses_ignored_fields():
    """--strict names each field Fieldnotes has no place for, at its first line."""
    site = site_of(DATA / "hugo-site", strict=True)
    messages = [str(problem) for problem in site.problems]
    assert any("index.md:" in m and "`layout` has no place" in m for m in messages)
    assert any("first-light.md:" in m and "`toc` has no place" in m for m in messages)
    quiet = site_of(DATA / "hugo-site", strict=True, ignore=frozenset({"layout", "toc"}))
    assert quiet.problems == []


def write(folder: Path, name: str, text: str) -> Path:
    """Write a file under folder, making its parents."""
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_dates_from_name_and_address(tmp_path):
    """Without `date`: the file name's prefix, then a YYYY/MM/DD in `path`; with neither and
    no draft, the file is refused with a line and a reason."""
    content = tmp_path / "content"
    write(content, "notes/_index.md", '+++\ntitle = "Notes"\n+++\n')
    write(content, "notes/2021-03-04_by-name.md", '+++\ntitle = "By name"\n+++\nText.\n')
    write(
        content,
        "notes/by-path.md",
        '+++\ntitle = "By path"\npath = "2020/01/02/by-path"\n+++\nText.\n',
    )
    write(content, "notes/undated.md", '+++\ntitle = "Undated"\n+++\nText.\n')
    site = site_of(content)
    posts = by_slug(site)
    assert posts["by-name"].entry.published_at == datetime(2021, 3, 4)
    assert posts["by-name"].entry.topics == ["Notes"]
    assert posts["by-path"].entry.published_at == datetime(2020, 1, 2)
    assert [str(problem) for problem in site.problems] == [
        f"{content / 'notes' / 'undated.md'}:1: no date: give `date`, or a name like"
        " 2024-01-02-title.md"
    ]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("+++\ntitle = \n+++\n", "not valid TOML"),
        ("---\ntitle: [\n---\n", "not valid YAML"),
        ("+++\ntitle = 'x'\n", "never closed"),
        ("no header\n", "no front matter"),
    ],
)
def test_unreadable_headers(text, message):
    """Front matter that does not read is a problem with a line, never a crash."""
    with pytest.raises(HeaderError, match=message):
        read_header(text)


def test_yaml_aliases_cannot_expand_without_bound():
    """A header of nested aliases (a "billion laughs") is refused, not expanded."""
    lines = ["---", "a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{n}: &a{n} [*a{n - 1}, *a{n - 1}, *a{n - 1}, *a{n - 1}]" for n in range(1, 12)]
    lines += ["title: Boom", "---", ""]
    with pytest.raises(HeaderError, match="expands to more than"):
        read_header("\n".join(lines))


def test_shortcodes():
    """Hugo's `figure` and `highlight` become a figure and a fenced code block; other
    shortcodes, Hugo's and Zola's, stay as written and are counted."""
    left: Counter[str] = Counter()
    body = hugo_zola.shortcodes(
        '{{< figure src="plan.png" alt="The <plan>" caption="Our plan" >}}\n\n'
        '{{< highlight go "linenos=table" >}}\nfunc main() {}\n{{< /highlight >}}\n\n'
        '{{< youtube abc >}} {{% notice %}}x{{% /notice %}} {{ youtube(id="x") }}',
        left,
    )
    assert body.startswith(
        '<figure><img src="plan.png" alt="The &lt;plan&gt;"><figcaption>Our plan</figcaption>'
        "</figure>\n\n```go\nfunc main() {}\n```\n\n{{< youtube abc >}}"
    )
    assert left == {"{{< youtube >}}": 1, "{{< notice >}}": 1, "{{ youtube() }}": 1}


def test_a_post_that_links_outside_the_site_is_not_read(tmp_path):
    """A Markdown file that is a link to a file outside PATH is refused, never read."""
    secret = tmp_path / "secret.md"
    secret.write_text('+++\ntitle = "Secret"\ndate = 2020-01-01\n+++\nNot for the blog.\n')
    content = tmp_path / "site" / "content" / "notes"
    content.mkdir(parents=True)
    write(content, "_index.md", '+++\ntitle = "Notes"\n+++\n')
    (content / "leak.md").symlink_to(secret)
    site = site_of(tmp_path / "site" / "content")
    assert site.posts == []
    [problem] = site.problems
    assert problem.path == str(content / "leak.md")
    assert "leads outside the imported folder" in problem.message
