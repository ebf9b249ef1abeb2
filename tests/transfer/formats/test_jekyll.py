"""A Jekyll site's root read into entries: dates from names, permalinks, drafts, Liquid."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from blog.transfer.formats import detection, jekyll, liquid

DATA = Path(__file__).parents[2] / "data" / "transfer"


def site_of(path: Path, **options):
    """The Jekyll site read from a folder."""
    return jekyll.read_site(detection.detect(path), **options)


def test_jekyll_site():
    """Posts take their date and slug from the file name, their old address from the
    permalink pattern, and their Liquid is rendered; drafts and pages are told apart."""
    site = site_of(DATA / "jekyll-site")
    assert site.problems == []
    assert site.skipped == ["about.md: a page, not a post"]
    assert dict(site.ignored) == {"layout": 1, "version": 1, "comments": 1}
    assert dict(site.left) == {"{% include %}": 1}
    posts = {post.entry.slug: post for post in site.posts}
    pager = posts["the-pager-rotation"]
    assert pager.entry.published_at == datetime(2021, 2, 3)
    assert pager.entry.topics == ["Operations", "on-call", "rotas"]
    assert pager.authors == ["Ola Berg"]
    assert pager.old_paths == [
        "/news/2021/02/03/the-pager-rotation",
        "/pager",
        "/news/2021/02/03/pager-rotation",
    ]
    body = pager.entry.body
    assert "Call 555-0199\nif it rings at https://nightshift.example" in body
    assert 'this page is "The pager rotation, rewritten"' in body
    assert "```ruby\ndef next_on_call(team, week)" in body
    assert "Templates print {{ name }} and {% if %} as they are." in body
    assert "[the quiet nights](/posts/quiet-nights)" in body
    assert "[who we are](https://nightshift.example/about.html)" in body
    assert "{% include signature.html %}" in body
    assert "![the pager on the desk](/assets/pager.png)" in body
    assert "Step 1. Step 2. Step 3." in body
    quiet = posts["quiet-nights"]
    # The address keeps the date as written (23:10 at +01:00), the store keeps UTC.
    assert quiet.old_paths == ["/news/2021/03/04/quiet-nights"]
    assert quiet.entry.published_at == datetime(2021, 3, 4, 22, 10)
    assert posts["rota-ideas"].entry.draft


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("date", "/ops/2021/02/03/a-post.html"),
        ("pretty", "/ops/2021/02/03/a-post/"),
        ("none", "/ops/a-post.html"),
        ("/:year/:i_month/:i_day/:slug", "/2021/2/3/a-post"),
        ("/blog/:title.html", "/blog/a-post.html"),
    ],
)
def test_permalink_patterns(pattern, expected):
    """Jekyll's styles and placeholders give the old address."""
    assert jekyll._permalink(pattern, ["Ops"], "a-post", datetime(2021, 2, 3)) == expected


def write_post(root: Path, name: str, text: str) -> Path:
    """Write a post into a Jekyll site's _posts/."""
    path = root / "_posts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "body",
    [
        "{% for i in (1..1000000) %}x{% endfor %}",
        "{% for i in (1..1000) %}{% for j in (1..1000) %}{% endfor %}{% endfor %}",
        "{% assign s = 'aaaaaaaaaaaaaaaaaaaa' %}{% for i in (1..9000) %}{{ s }}{{ s }}"
        "{{ s }}{{ s }}{{ s }}{{ s }}{{ s }}{{ s }}{{ s }}{{ s }}{{ s }}{{ s }}{% endfor %}",
    ],
)
def test_liquid_that_would_loop_is_refused(tmp_path, body):
    """A tag that loops (or writes without end) refuses its file with a clear message,
    within the render limits."""
    path = write_post(tmp_path, "2021-01-01-loop.md", f"---\ntitle: Loop\n---\n\n{body}\n")
    site = site_of(tmp_path)
    assert site.posts == []
    [problem] = site.problems
    assert problem.path == str(path) and problem.line == 5  # the loop's line in the file
    assert "its Liquid cannot be rendered" in problem.message and "limit" in problem.message


@pytest.mark.parametrize(
    ("before", "lines"),
    [
        ("", 0),
        # Highlight blocks become fences of more (or fewer) lines: the count stays the file's.
        ("{% highlight sh %}ls{% endhighlight %}\n", 1),
        ("{% highlight sh %}\nls\n\n{% endhighlight %}\n", 4),
        ("{% raw %}{{ kept\nas written }}{% endraw %}\n", 2),
    ],
)
def test_a_liquid_error_is_named_at_its_line_in_the_file(tmp_path, before, lines):
    """An error python-liquid finds in a body is named at its own line in the file, the
    front matter's lines counted."""
    header = "---\ntitle: Sums\ncategories: ops\n---\n"  # the body starts on line 5
    body = f"{before}Intro.\n\n{{{{ 7 | divided_by: 0 }}}}\n"
    path = write_post(tmp_path, "2021-01-01-sums.md", header + body)
    [problem] = site_of(tmp_path).problems
    assert problem.path == str(path) and problem.line == 5 + lines + 2
    assert problem.message == "its Liquid cannot be rendered: divided_by: can't divide by 0"


def test_a_malformed_date_refuses_one_file_only(tmp_path):
    """One bad date among the posts is a problem of that file, with its line."""
    write_post(tmp_path, "2021-01-01-good.md", "---\ntitle: Good\n---\n\nText.\n")
    bad = write_post(tmp_path, "2021-01-02-bad.md", "---\ntitle: Bad\ndate: 2021-13-45\n---\n")
    site = site_of(tmp_path)
    assert [post.entry.slug for post in site.posts] == ["good"]
    assert [str(problem) for problem in site.problems] == [
        f"{bad}:3: `date` must be an ISO 8601 date or date-time such as 2024-01-02"
        " or 2024-01-02T10:20:00Z, not `2021-13-45`"
    ]


def test_liquid_that_does_not_parse_is_kept_as_written():
    """A body whose Liquid does not parse keeps its text, and says so."""
    rendered = liquid.render(
        "Prices {{ in braces", site={}, page={}, base_url="", addresses=lambda *_: None
    )
    assert rendered.text == "Prices {{ in braces"
    assert sum(rendered.left.values()) == 1


def test_a_post_that_links_outside_the_site_is_not_read(tmp_path):
    """A post that is a link to a file outside PATH is refused, never read; `{% link %}`
    to a file outside PATH gives no address."""
    secret = tmp_path / "secret.md"
    secret.write_text("---\ntitle: Secret\n---\nNot for the blog.\n")
    root = tmp_path / "site"
    (root / "_posts").mkdir(parents=True)
    (root / "_posts" / "2021-01-01-leak.md").symlink_to(secret)
    write_post(root, "2021-01-02-ok.md", "---\ntitle: Ok\n---\n\n[x]({% link ../secret.md %})\n")
    site = site_of(root)
    assert [post.entry.slug for post in site.posts] == ["ok"]
    assert "leads outside the imported folder" in site.problems[0].message
    assert "{% link ../secret.md %}" in site.posts[0].entry.body


DEFAULTS = """title: Night shift
permalink: /news/:year/:title/
defaults:
  - scope:
      path: ""
    values:
      layout: post
      author: Night Desk
  - scope:
      path: "ops"
      type: posts
    values:
      author: [Ops Rota, Night Desk]
      categories: rota
      permalink: /ops/:title/
  - scope:
      path: ""
      type: pages
    values:
      author: Nobody
"""


def defaults_site(root: Path, config: str = DEFAULTS) -> Path:
    """A Jekyll site whose `_config.yml` has `defaults:`, a post of its own and one under
    ops/ that names its own author."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "_config.yml").write_text(config)
    write_post(root, "2021-01-02-plain.md", "---\ntitle: Plain\ntags: [shifts]\n---\n\nText.\n")
    write_post(
        root / "ops",
        "2021-01-03-swap.md",
        "---\ntitle: Swap\nauthor: Kit Ames\n---\n\nText.\n",
    )
    return root


def test_defaults_fill_what_posts_leave_out(tmp_path):
    """`defaults:` give each post in their scope its author, categories and permalink; the
    front matter wins; the most specific scope wins over the site-wide one; a scope of
    another type applies to no post; a default with no place is counted as ignored."""
    site = site_of(defaults_site(tmp_path / "site"))
    assert site.problems == []
    posts = {post.entry.slug: post for post in site.posts}
    assert posts["plain"].authors == ["Night Desk"]
    assert posts["plain"].old_paths == ["/news/2021/plain"]
    swap = posts["swap"]
    assert swap.authors == ["Kit Ames"]  # its own front matter wins
    assert swap.entry.topics == ["rota"]
    assert swap.old_paths == ["/ops/swap"]
    assert dict(site.ignored) == {"layout": 2}


def test_strict_names_the_default_with_no_place(tmp_path):
    """With --strict a default Fieldnotes keeps no place for is refused at `defaults:` in
    `_config.yml`, not at a post that never wrote it."""
    root = defaults_site(tmp_path / "site")
    [problem] = site_of(root, strict=True).problems
    assert (problem.path, problem.line) == (str(root / "_config.yml"), 3)
    assert problem.message.startswith("`layout` has no place in Fieldnotes (2 files have it)")


@pytest.mark.parametrize(
    ("block", "message"),
    [
        ("defaults: post", "must be a list of entries, each with `scope:` and `values:`"),
        ("defaults:\n  - scope: {path: ''}", "entry 1 must have `values:`"),
        ("defaults:\n  - scope: all\n    values: {layout: post}", "`scope:` must hold"),
        ("defaults:\n  - scope: {path: ../..}\n    values: {a: b}", "leads outside the site"),
        ("defaults:\n  - values: {author: {name: x}}", "`author` must be text or a list"),
    ],
)
def test_a_defaults_block_of_the_wrong_type_is_refused(tmp_path, block, message):
    """A `defaults:` that is not a list of scopes and values refuses the import, named at
    its line in `_config.yml`; no post takes a default from it."""
    root = defaults_site(tmp_path / "site", f"title: Night shift\n{block}\n")
    site = site_of(root)
    [problem] = site.problems
    assert (problem.path, problem.line) == (str(root / "_config.yml"), 2)
    assert problem.message.startswith("`defaults`: ") and message in problem.message


def test_tags_inside_a_highlight_block_are_prepared_too():
    """Inside a highlight block an unknown tag is kept as written and `{{ site.* }}` is
    filled, as Jekyll renders it; nothing there refuses the post."""
    rendered = liquid.render(
        "{% highlight html %}\n{% include nav.html %}\n<p>{{ site.title }}</p>\n"
        "{% endhighlight %}\n",
        site={"title": "Night shift"},
        page={},
        base_url="",
        addresses=lambda *_: None,
    )
    assert rendered.text == "```html\n{% include nav.html %}\n<p>Night shift</p>\n```\n"
    assert dict(rendered.left) == {"{% include %}": 1}
    # The usual way to show Liquid itself in a code block: raw inside highlight.
    shown = liquid.render(
        "{% highlight liquid %}{% raw %}{{ page.title }}{% endraw %}{% endhighlight %}",
        site={},
        page={"title": "x"},
        base_url="",
        addresses=lambda *_: None,
    )
    assert shown.text == "```liquid\n{{ page.title }}\n```"
