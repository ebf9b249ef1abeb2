"""Code blocks: the language label, the focusable named region, and hostile fences."""

from __future__ import annotations

import time

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
