"""Code blocks: the language label, the focusable named region, and hostile fences."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from blog import markup
from blog.markup.code import LABEL_MAX, language_name
from blog.markup.policy import find_violations
from blog.markup.text import text_stats
from tests.markup.test_budget import ANSWERED_WITHIN


def blocks(text: str) -> list:
    """The rendered code blocks (div.highlight) of a body."""
    return BeautifulSoup(markup.render(text).html, "lxml").select("div.highlight")


@pytest.mark.parametrize(
    ("lang", "name"),
    [
        ("python", "Python"),
        ("py", "Python"),
        ("PYTHON", "Python"),
        ("sh", "Shell"),
        ("bash", "Shell"),
        ("console", "Shell session"),
        ("ts", "TypeScript"),
        ("sql", "SQL"),
        ("text", ""),
        ("", ""),
        ("nosuchlanguage", "nosuchlanguage"),
        ("x" * (LABEL_MAX + 1), ""),
        ("x" * 5_000, ""),
    ],
)
def test_language_names(lang, name):
    """Known languages by their usual name; unknown ones as written when short; else none."""
    assert language_name(lang) == name


def test_a_fenced_block_is_labelled_and_focusable():
    """A fence's language shows above the code and names the focusable scroll region."""
    [block] = blocks("```python\nprint('hi')\n```")
    label, pre = block.find_all(recursive=False)
    assert label.name == "p" and label["class"] == ["code-language"] and label.text == "Python"
    assert pre.name == "pre"
    assert (pre["tabindex"], pre["role"], pre["aria-label"]) == ("0", "group", "Python code")
    assert pre.code.get_text() == "print('hi')\n"


@pytest.mark.parametrize("source", ["```\nplain\n```", "```text\nplain\n```", "    plain"])
def test_a_block_without_a_language_has_no_label(source):
    """No language, no label; the region is still focusable and named "Code"."""
    [block] = blocks(source)
    assert block.select(".code-language") == []
    assert (block.pre["tabindex"], block.pre["aria-label"]) == ("0", "Code")


def test_a_5000_character_language_is_dropped():
    """A fence language too long to be a name gives no label and an unchanged region name."""
    [block] = blocks(f"```{'x' * 5_000}\ncode\n```")
    assert block.select(".code-language") == [] and block.pre["aria-label"] == "Code"
    assert len(str(block)) < 300


@pytest.mark.parametrize("fence", ['```"><script>alert(1)</script>', "```c<img src=x>"])
def test_markup_in_a_fence_language_stays_text(fence):
    """Anything after the fence that is not a language name never becomes markup."""
    rendered = markup.render(f"{fence}\ncode\n```").html
    soup = BeautifulSoup(rendered, "lxml")
    assert soup.select("script, img") == [] and find_violations(rendered) == []
    assert all("<" not in label.text for label in soup.select(".code-language"))


def test_the_label_is_not_counted_as_words_or_summary():
    """The label is chrome, not prose: the summary and the word count leave it out."""
    rendered = markup.render("```python\nx = 1\n```\n\nThe first real paragraph.")
    assert rendered.summary == "The first real paragraph."
    stats = text_stats(rendered.html)
    assert stats.prose_words == 4


def test_a_200000_character_code_block():
    """A body-sized code block is highlighted and labelled once; under a tight time limit it
    is refused promptly, like any other body (the label adds nothing to the cost)."""
    line = "total = compute(items)  # " + "a" * 60 + "\n"
    body = "```python\n" + line * (199_980 // len(line)) + "```"
    [block] = BeautifulSoup(markup.render(body, time_limit=60).html, "lxml").select("div.highlight")
    assert len(block.select(".code-language")) == 1 and block.pre["aria-label"] == "Python code"
    started = time.monotonic()
    with pytest.raises(markup.TooSlow):
        markup.render(body, time_limit=0.1)
    assert time.monotonic() - started < ANSWERED_WITHIN


def test_sanitizing_a_code_block_again_changes_nothing():
    """The label and region attributes are exactly what the policy allows."""
    rendered = markup.render("```sh\nls -la\n```\n\n    indented").html
    assert find_violations(rendered) == [] and markup.sanitize(rendered) == rendered


def test_a_title_names_the_file_above_the_code_and_in_the_region():
    """`title="app.py"` shows the file name before the language and names the region."""
    [block] = blocks('```python title="app.py"\nprint(1)\n```')
    label = block.select_one(".code-language")
    assert label.select_one(".code-file").text == "app.py" and label.text == "app.py Python"
    assert block.pre["aria-label"] == "app.py, Python code"


def test_a_title_without_a_language_and_a_hostile_title():
    """A title alone names the region; markup in a title is text."""
    [block] = blocks('```text title="<b>x</b> & y"\nplain\n```')
    assert block.select_one(".code-file").text == "<b>x</b> & y"
    assert block.pre["aria-label"] == "<b>x</b> & y, code"
    assert block.select("b") == []


def test_marked_lines_are_mark_elements():
    """`hl_lines` marks those lines with <mark>, more than a background colour."""
    [block] = blocks('```python hl_lines="2 3"\na = 1\nb = 2\nc = 3\nd = 4\n```')
    marks = block.select("mark.hll")
    assert [mark.get_text() for mark in marks] == ["b = 2\n", "c = 3\n"]


def test_numbered_lines_number_nothing_that_is_copied():
    """`linenums="1"` wraps each line for the stylesheet to number; the text is the code."""
    [block] = blocks('```python linenums="1"\na = 1\nb = 2\n```')
    assert block["class"] == ["highlight", "numbered"]
    assert [line.get_text() for line in block.select("span.line")] == ["a = 1\n", "b = 2\n"]
    assert block.pre.code.get_text() == "a = 1\nb = 2\n"


def test_all_three_options_together_in_any_order():
    """Options may come in any order, quoted either way."""
    [block] = blocks('```py linenums=\'1\' title="a.py" hl_lines="1"\nx = 1\n```')
    assert block.select_one(".code-file").text == "a.py"
    assert block.select("span.line mark.hll") and "numbered" in block["class"]


def test_diff_lines_are_ins_and_del_keeping_their_signs():
    """Added and removed lines are <ins> and <del> and keep + and -: not colour alone."""
    [block] = blocks("```diff\n context\n-old line\n+new line\n```")
    assert [node.get_text() for node in block.select("del")] == ["-old line"]
    assert [node.get_text() for node in block.select("ins")] == ["+new line"]
    assert block.pre.code.get_text() == " context\n-old line\n+new line\n"


@pytest.mark.parametrize(
    "info",
    [
        'python cssfile="/tmp/x.css" full="true"',
        'python title="a" onclick="alert(1)"',
        '{ .python full="true" cssfile="/tmp/x.css" noclasses="true" }',
    ],
)
def test_formatter_options_a_fence_may_not_set_are_dropped(info):
    """Only title, hl_lines and linenums reach the formatter: no file written, no style."""
    written = Path("/tmp/x.css")
    written.unlink(missing_ok=True)
    page = BeautifulSoup(markup.render(f"```{info}\nprint(1)\n```").html, "html.parser")
    assert all(not {"style", "onclick"} & set(tag.attrs) for tag in page.find_all(True))
    assert not written.exists()


def test_a_fence_with_options_inside_another_fence_is_left_as_code():
    """Fence lines shown inside a longer fence are code, not options to act on."""
    text = '````markdown\n```python title="a.py"\nx\n```\n````'
    [block] = blocks(text)
    assert block.pre.code.get_text() == '```python title="a.py"\nx\n```\n'
