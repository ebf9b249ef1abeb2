"""The models' own rules, those that need no database."""

from __future__ import annotations

import pytest

from blog import markup
from blog.models import Post

SECTIONS = "Intro words here.\n\n## One\n\na\n\n## Two\n\nb\n\n## Three\n\nc\n"


@pytest.mark.parametrize(
    ("body", "summary", "toc", "excerpt"),
    [
        (SECTIONS, "", [[2, "one"], [2, "two"], [2, "three"]], "Intro words here."),
        ("First words.\n\n## Only\n\ntext\n", "  Mine.  ", [], "Mine."),
    ],
)
def test_a_post_takes_every_part_of_a_render(body, summary, toc, excerpt):
    """The HTML, reading time, version, a table of contents only with enough sections, and
    the summary as the excerpt when there is one, the render's otherwise."""
    post = Post(summary=summary)
    rendered = markup.render(body)
    post.take_render(body, rendered)
    assert post.body_markdown == body and post.body_html == rendered.html
    assert post.reading_minutes == rendered.reading_minutes
    assert post.render_version == markup.PIPELINE_VERSION
    assert [[level, anchor.rpartition("-")[2]] for level, anchor, _ in post.toc] == toc
    assert post.excerpt == excerpt
