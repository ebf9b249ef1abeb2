"""Golden tests for the Markdown pipeline's rich features (blog/markup.py)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from blog import markup
from tests.markup.test_xss import rendered

ROOT = Path(__file__).resolve().parents[2]


def html_of(text: str, **options) -> str:
    return markup.render(text, **options).html


def words(n: int, word: str = "word") -> str:
    return " ".join([word] * n)


THREE_SECTIONS = """Intro paragraph.

## Getting started

Text.

### Install it

Text.

## Using it

#### Too deep for the TOC

## Wrapping up

Bye.
"""


def test_pipeline_version_is_a_positive_int():
    """PIPELINE_VERSION is an int starting at 1."""
    assert isinstance(markup.PIPELINE_VERSION, int) and markup.PIPELINE_VERSION >= 1


def test_rendered_is_frozen():
    """Rendered and TocEntry are immutable value objects."""
    rendered = markup.render("Hello")
    with pytest.raises(dataclasses.FrozenInstanceError):
        rendered.html = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        markup.TocEntry(2, "s-a", "A").id = "x"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("```python\ndef f():\n    return 1\n```", '<span class="k">def</span>'),
        ("```python\ndef f():\n    return 1\n```", '<span class="nf">f</span>'),
        ("```python\nx = 'a'\n```", '<span class="s1">'),
        (
            "```\nplain text\n```",
            '<div class="highlight"><pre tabindex="0" role="group" aria-label="Code">'
            "<span></span><code>plain text",
        ),
        ("    indented = True", '<div class="highlight">'),
        ("```nosuchlanguage\n<b>x</b>\n```", "<code>&lt;b&gt;x&lt;/b&gt;"),
    ],
)
def test_code_blocks_are_highlighted_with_classes(source, expected):
    """Fenced and indented code goes through Pygments with class-based markup."""
    assert expected in html_of(source)


def test_code_highlighting_has_no_inline_styles():
    """Pygments output is class-based: no style attributes reach the page."""
    assert "style=" not in html_of("```python\nimport os\n```")


TABLE = "| Name | Size | Ok | Note |\n|:--|--:|:-:|---|\n| a.txt | 2 KB | yes | *fine* |"


@pytest.mark.parametrize(
    "expected",
    [
        '<table tabindex="0">\n<thead>\n<tr>',
        '<th class="align-left" dir="auto">Name</th>',
        '<th class="align-right" dir="auto">Size</th>',
        '<td class="align-center" dir="auto">yes</td>',
        '<td dir="auto"><em>fine</em></td>',
    ],
)
def test_tables(expected):
    """Tables render with alignment classes, never style or the obsolete align."""
    out = html_of(TABLE)
    assert expected in out
    assert "style=" not in out and "align=" not in out


FOOTNOTES = "Claim[^1] and another[^big idea].\n\n[^1]: Source one.\n[^big idea]: Source two."


@pytest.mark.parametrize(
    "expected",
    [
        '<sup id="fnref-1"><a class="footnote-ref" href="#fn-1">1</a></sup>',
        '<li id="fn-1">',
        'class="footnote-backref" href="#fnref-1"',
        '<sup id="fnref-big-idea"><a class="footnote-ref" href="#fn-big-idea">2</a></sup>',
        '<li id="fn-big-idea">',
        '<div class="footnote">',
    ],
)
def test_footnotes_have_prefixed_ids(expected):
    """Footnote and reference ids carry the fn-/fnref- prefixes, labels made id-safe."""
    assert expected in html_of(FOOTNOTES)


@pytest.mark.parametrize("source", [FOOTNOTES, "A[^n] b[^n] c[^n]\n\n[^n]: Note.", THREE_SECTIONS])
def test_every_fragment_link_has_a_target(source):
    """Footnote links, back-references and permalinks all point at ids in the page."""
    out = html_of(source)
    targets = re.findall(r'href="#([^"]+)"', out)
    ids = set(re.findall(r'id="([^"]+)"', out))
    assert targets and set(targets) <= ids


def test_definition_lists():
    """Definition lists render as dl/dt/dd."""
    expected = '<dl>\n<dt dir="auto">Latency</dt>\n<dd dir="auto">Time to first byte.</dd>\n</dl>'
    assert expected in html_of("Latency\n: Time to first byte.")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('"Hello"', "&ldquo;Hello&rdquo;"),
        ("it's", "it&rsquo;s"),
        ("'single'", "&lsquo;single&rsquo;"),
        ("wait...", "wait&hellip;"),
        ("a -- b", "a &ndash; b"),
        ("a --- b", "a &mdash; b"),
        ('`"code"`', '<code>"code"</code>'),
    ],
)
def test_smart_quotes(source, expected):
    """Smarty turns quotes, dashes and ellipses typographic, but not inside code."""
    assert expected in html_of(source)


@pytest.mark.parametrize(
    "expected",
    [
        '<h2 dir="auto" id="s-getting-started">Getting started<a class="headerlink" '
        'href="#s-getting-started" title="Permanent link">&para;</a></h2>',
        '<h3 dir="auto" id="s-install-it">',
        '<h4 dir="auto" id="s-too-deep-for-the-toc">',
    ],
)
def test_heading_ids_and_permalinks(expected):
    """Headings get s- prefixed ids and a visible permalink anchor."""
    assert expected in html_of(THREE_SECTIONS)


def test_toc_entries_for_three_sections():
    """The TOC lists h2 and h3 headings in order, and is shown for 3+ sections."""
    rendered = markup.render(THREE_SECTIONS)
    assert rendered.toc == [
        markup.TocEntry(2, "s-getting-started", "Getting started"),
        markup.TocEntry(3, "s-install-it", "Install it"),
        markup.TocEntry(2, "s-using-it", "Using it"),
        markup.TocEntry(2, "s-wrapping-up", "Wrapping up"),
    ]
    assert rendered.show_toc


@pytest.mark.parametrize(
    ("source", "shown"),
    [("## One\n\n## Two", False), ("## One\n\n### Sub\n\n### Sub 2\n\n## Two", False), ("", False)],
)
def test_toc_hidden_below_three_sections(source, shown):
    """Posts with fewer than three sections don't show a TOC."""
    assert markup.render(source).show_toc is shown


@pytest.mark.parametrize(
    ("source", "entry"),
    [
        ("## Using `async` *well*", markup.TocEntry(2, "s-using-async-well", "Using async well")),
        (
            '## "Quotes" & 1 < 2 <b>bold</b>',
            markup.TocEntry(2, "s-quotes-1-2-bold", "\u201cQuotes\u201d & 1 < 2 bold"),
        ),
        ("## Ünïcödé", markup.TocEntry(2, "s-unicode", "Ünïcödé")),
        ("## 日本語", markup.TocEntry(2, "s-section", "日本語")),
    ],
)
def test_toc_titles_are_plain_text(source, entry):
    """TOC titles are plain text; ids are ASCII slugs under the s- prefix."""
    assert markup.render(source).toc == [entry]


def test_duplicate_headings_get_unique_ids():
    """Repeated headings get distinct ids."""
    toc = markup.render("## Notes\n\n## Notes").toc
    assert [entry.id for entry in toc] == ["s-notes", "s-notes_1"]


@pytest.mark.parametrize(
    "source", ["## Title {#custom}", "## Title {: #custom .big }", "Para\n{: #custom }"]
)
def test_attr_list_is_off(source):
    """attr_list stays off: authors cannot set ids or classes."""
    out = html_of(source)
    assert 'id="custom"' not in out and 'class="big"' not in out


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (
            "See https://example.com/page.",
            '<a href="https://example.com/page" rel="noopener noreferrer">'
            "https://example.com/page</a>.",
        ),
        (
            "Go to www.example.org now",
            '<a href="http://www.example.org" rel="noopener noreferrer">',
        ),
        ("<https://example.com>", '<a href="https://example.com" rel="noopener noreferrer">'),
    ],
)
def test_bare_urls_are_linkified(source, expected):
    """Bare URLs and autolinks become links with rel on external ones."""
    assert expected in html_of(source)


def test_urls_in_code_are_not_linkified():
    """URLs inside code spans and blocks stay text."""
    out = html_of("`https://example.com`\n\n```\nhttps://example.com\n```")
    assert "<a" not in out


@pytest.mark.parametrize(
    ("nofollow", "rel"),
    [(False, "noopener noreferrer"), (True, "noopener noreferrer nofollow")],
)
def test_external_link_rel(nofollow, rel):
    """External links get noopener noreferrer, plus nofollow when asked."""
    out = html_of("[site](https://other.example/a) and [cdn](//cdn.example/x)", nofollow=nofollow)
    assert f'<a href="https://other.example/a" rel="{rel}">site</a>' in out
    assert f'<a href="//cdn.example/x" rel="{rel}">cdn</a>' in out


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("[post](/posts/hello)", '<a href="/posts/hello">post</a>'),
        ("[rel](../other)", '<a href="../other">rel</a>'),
        ("[section](#s-intro)", '<a href="#s-intro">section</a>'),
        ("[mail](mailto:me@example.com)", '<a href="mailto:me@example.com">mail</a>'),
    ],
)
def test_internal_links_have_no_rel(source, expected):
    """Relative, fragment and mailto links get no rel attribute."""
    assert expected in html_of(source, nofollow=True)


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("![A cat on a mat](/media/cat.png)", '<img alt="A cat on a mat" src="/media/cat.png">'),
        ('![Chart "Q1"](c.png "Title")', 'alt="Chart &quot;Q1&quot;"'),
        ("![Bad](javascript:alert(1))", '<img alt="Bad">'),
    ],
)
def test_image_alt_text_is_kept(source, expected):
    """Images keep their alt text; unsafe sources are dropped, alt stays."""
    assert expected in html_of(source)


LONG_PARAGRAPH = " ".join(f"word{i}" for i in range(120))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("First **bold** [link](/x) `code`.\n\nSecond.", "First bold link code."),
        ("## Heading\n\nAfter the heading.", "After the heading."),
        ("![Only an image](/a.png)\n\nReal text.", "Real text."),
        ("Claim[^1] here.\n\n[^1]: Note.", "Claim here."),
        ("Raw <b>tag</b> & 1 < 2", "Raw tag & 1 < 2"),
        ("Line one\nline two", "Line one line two"),
        ("- only\n- a list", ""),
        ("", ""),
    ],
)
def test_summary_is_plain_first_paragraph(source, expected):
    """The summary is the first paragraph as plain text."""
    assert markup.derive_summary(source) == expected
    assert markup.render(source).summary == expected


@pytest.mark.parametrize("limit", [300, 120, 40])
def test_summary_cut_at_word_boundary(limit):
    """Long first paragraphs are cut at a word boundary with an ellipsis, within limit."""
    summary = markup.derive_summary(LONG_PARAGRAPH + "\n\nSecond paragraph.", limit=limit)
    assert len(summary) <= limit and summary.endswith("\u2026")
    assert LONG_PARAGRAPH.startswith(summary[:-1]) and summary[-2].isdigit()
    assert LONG_PARAGRAPH[len(summary) - 1] == " "


def test_render_summary_fits_300():
    """render() derives at most ~300 characters."""
    assert len(markup.render(LONG_PARAGRAPH).summary) <= 300


@pytest.mark.parametrize(
    ("source", "minutes"),
    [
        ("", 1),
        ("Short.", 1),
        (words(230), 1),
        (words(3 * 230), 3),
        (words(10 * 230), 10),
        (words(int(2.4 * 230)), 2),
        (words(int(2.6 * 230)), 3),
    ],
)
def test_reading_minutes_prose(source, minutes):
    """Prose reads at 230 words a minute, rounded, at least 1."""
    assert markup.reading_minutes(source) == minutes
    assert markup.render(source).reading_minutes == minutes


def test_reading_minutes_weights_code_lower():
    """Words in code blocks count less than prose words."""
    code = "```python\n" + "\n".join(["x = compute(a, b)"] * 115) + "\n```"  # 460 code words
    with_code = words(460) + "\n\n" + code
    assert markup.reading_minutes(with_code) == 3
    assert markup.reading_minutes(words(920)) == 4


@pytest.mark.parametrize(("wpm", "minutes"), [(100, 5), (500, 1)])
def test_reading_minutes_custom_speed(wpm, minutes):
    """The words-per-minute rate is a parameter."""
    assert markup.reading_minutes(words(500), wpm=wpm) == minutes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Plain title", "Plain title"),
        ("Using **bold** and *em* and _em_", "Using bold and em and em"),
        ("A [link](https://example.com) here", "A link here"),
        ("An ![image alt](x.png)", "An image alt"),
        ("Why `<details>` rocks", "Why <details> rocks"),
        ("<b>Bold</b> <script>x</script>", "Bold x"),
        ("Fish &amp; chips &lt;3", "Fish & chips <3"),
        ("  spaced \n  out\t", "spaced out"),
        ("snake_case_name", "snake_case_name"),
        ("2 * 3 * 4", "2 * 3 * 4"),
        ("<!-- hidden -->Shown", "Shown"),
        ("", ""),
    ],
)
def test_plain_text(text, expected):
    """plain_text strips HTML and inline Markdown from one-line fields."""
    assert markup.plain_text(text) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ('<p id="main" class="x">hi</p>', "<p>hi</p>"),
        ('<h2 id="s-ok">t</h2>', '<h2 id="s-ok">t</h2>'),
        ('<span class="k">def</span>', '<span class="k">def</span>'),
        ('<span class="k evil">def</span>', "<span>def</span>"),
        (
            '<a href="https://x.example" rel="noopener evil">x</a>',
            '<a href="https://x.example">x</a>',
        ),
        ("<p>a<!-- c -->b</p>", "<p>ab</p>"),
        ("<script>alert(1)</script>", "alert(1)"),
    ],
)
def test_sanitize_allowlist(raw, expected):
    """sanitize() keeps only pipeline ids/classes and allowlisted markup."""
    assert markup.sanitize(raw) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('<div hx-get="/x" class="pie-chart" style="x">hi</div>', "<div>hi</div>"),
        (
            "<details>\n<summary>The numbers</summary>\n<pre>\nmon  41 min\n</pre>\n</details>",
            "<details>\n<summary>The numbers</summary>\n<pre>mon  41 min\n</pre>\n</details>",
        ),
        (
            '<figure>\n<img src="/a.png" alt="A \'b\'" width="64" height="40">'
            "\n<figcaption>Cap</figcaption>\n</figure>",
            '<figure>\n<img src="/a.png" alt="A \'b\'" width="64" height="40">'
            "\n<figcaption>Cap</figcaption>\n</figure>",
        ),
        (
            'H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>, <mark>m</mark>, a<br>b "q"',
            '<p dir="auto">H<sub>2</sub>O, x<sup>2</sup>, <kbd>Ctrl</kbd>, <mark>m</mark>,'
            " a<br>b &ldquo;q&rdquo;</p>",
        ),
        (
            '<table><tr><td colspan="2" rowspan="x" onclick="y">a</td></tr></table>',
            '<table><tbody><tr><td colspan="2">a</td></tr></tbody></table>',
        ),
        ('Text <span style="color:red" onclick="x()">red</span>', '<p dir="auto">Text <span>red'),
        ("<script>alert(1)</script>\n\n<style>p{}</style>\n\nAfter", '<p dir="auto">After</p>'),
        ('<iframe src="https://x.example">words</iframe>', "words"),
        ('<a href="javascript:alert(1)">j</a> <img src="data:image/png;base64,x">', "<a>j</a>"),
    ],
)
def test_raw_html_in_markdown_keeps_the_allowed_tags(text, expected):
    """Raw HTML typed in a post keeps the allow-list's tags and attributes; the rest goes,
    keeping what it holds as text where it is text (never a script's or a style's)."""
    html = html_of(text)
    assert expected in html
    assert "script" not in html and "p{}" not in html and "style" not in html


@pytest.mark.parametrize(
    "text",
    [
        '<div class="pie-chart">shares</div> and "words" around it',
        'Text <img src="a.png" alt="it\'s \'quoted\'"> and "quoted" -- end',
        'Text <img\nsrc="a.png"\nalt="over lines"> more "words"',
        '<abbr title="a thing">AT</abbr> "said"',
    ],
)
def test_typographic_quotes_never_enter_a_tag(text):
    """Smart quotes are for text: every attribute keeps the straight quotes it was written
    with, and no curly quote is left in a tag."""
    html = html_of(text)
    for tag in re.findall(r"<[^>]*>", html):
        assert not set(tag) & set("“”‘’"), tag
    assert "&ldquo;" not in "".join(re.findall(r"<[^>]*>", html))


def test_sanitize_falls_back_to_text_when_policy_check_fails(monkeypatch):
    """If bleach ever let something through, the standard-library audit escapes it all."""
    monkeypatch.setattr(markup, "find_violations", lambda html: ["forced"])
    assert markup.sanitize("<p>hi <em>x</em></p>") == "&lt;p&gt;hi &lt;em&gt;x&lt;/em&gt;&lt;/p&gt;"


@pytest.mark.parametrize("document", ["<pre>\n\nleading blank line</pre>", "<pre>\ntext</pre>"])
def test_sanitizing_pre_twice_changes_nothing(document):
    """Parsers drop the newline after <pre>; sanitize puts it back so it is idempotent."""
    once = markup.sanitize(document)
    assert markup.sanitize(once) == once
    assert markup.sanitize(markup.render(document).html) == markup.render(document).html


# Every element the pipeline has for engineering posts, in one body (feeds, export and the
# Nu checker use it too).
ENGINEERING_BODY = """Inline $E = mc^2$ and prices of $5 and $10.

$$
\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}
$$

```dot title="Request path"
digraph { client -> api -> store }
```

> [!WARNING]
> Take a backup first.

!!! tip "Faster builds"
    Cache the dependencies.

??? note "Why not cron?"
    Because.

![A chart of latency](/images/chart.png){.wide}
Latency over a week.

```python title="app.py" hl_lines="2" linenums="1"
import os
print(os.sep)
```

```diff
-old
+new
```

- [ ] to do
- [x] done

Press ++ctrl+c++ to copy ==this== HTML.

*[HTML]: Hypertext Markup Language
"""


def test_every_engineering_element_renders_in_one_body():
    """The body above gives each element once, inert and stable under sanitizing."""
    page = rendered(ENGINEERING_BODY)
    assert len(page.find_all("math")) == 2 and page.find("math", display="block")
    assert page.find("figure", class_="diagram").svg["aria-label"] == "Request path"
    assert len(page.find_all(class_="callout")) == 3 and page.find("details", class_="callout")
    assert page.find("figure", class_="figure-wide").figcaption.text == "Latency over a week."
    assert page.find(class_="code-file").text == "app.py" and page.find("mark", class_="hll")
    assert page.find("ins") and page.find("del") and len(page.select(".task-box")) == 2
    assert page.kbd and page.abbr and page.find("mark", class_=False)
