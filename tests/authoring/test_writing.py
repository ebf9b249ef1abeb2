"""Writing aids in the editor: the Markdown cheat sheet, word count and reading time."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from blog.models import PUBLISHED
from tests.authoring.test_auth import csrf_token, editor_client, page
from tests.authoring.test_editor import HX_PREVIEW, create

__all__ = ["editor_client"]

PROSE = " ".join(["word"] * 300)
CODE = "```\n" + " ".join(["x"] * 100) + "\n```"


def stats_line(client: FlaskClient, body: str) -> str:
    """The word count and reading time the live preview shows for a body."""
    token = csrf_token(client, "/editor/posts/new")
    response = client.post(
        "/editor/preview", data={"body": body, "csrf_token": token}, headers=HX_PREVIEW
    )
    assert response.status_code == 200
    found = page(response).select_one("#writing-stats")
    return " ".join(found.get_text().split()) if found is not None else ""


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("One.", "1 word · 1 min read"),
        (PROSE, "300 words · 1 min read"),
        (PROSE + "\n\n" + PROSE, "600 words · 3 min read"),
        # 450 prose words and 200 code words read as 550 (2 minutes); 650 would be 3.
        (" ".join(["word"] * 450) + "\n\n" + CODE + "\n\n" + CODE, "650 words · 2 min read"),
        ("Some [a link](https://example.com) and `code`.\n\n## A heading", "7 words · 1 min read"),
    ],
)
def test_the_preview_counts_words_and_minutes_by_the_post_rule(editor_client, body, expected):
    """Words and minutes follow the post page's rule: code words weigh half, 230 a minute."""
    assert stats_line(editor_client, body) == expected


def test_the_count_matches_the_post_page(app, editor_client):
    """The minutes shown while writing are those the published post shows readers."""
    body = " ".join(["word"] * 700) + "\n\n" + CODE
    post_id = create(editor_client, title="Long read", body=body, status=PUBLISHED)
    editor = page(editor_client.get(f"/editor/posts/{post_id}"))
    shown = editor.select_one("#writing-stats").get_text()
    minutes = re.search(r"(\d+) min read", shown).group(1)
    assert "750 words" not in shown and "800 words" in " ".join(shown.split())
    post = page(editor_client.get("/posts/long-read"))
    assert f"{minutes} min read" in " ".join(post.select_one(".post-meta").get_text().split())


def test_an_empty_body_shows_no_count(editor_client):
    """Nothing written, nothing counted: the preview's invitation stands alone."""
    assert stats_line(editor_client, "") == ""
    assert stats_line(editor_client, "   \n\n  ") == ""
    assert page(editor_client.get("/editor/posts/new")).select_one("#writing-stats") is None


def test_a_body_at_the_limit_is_counted(editor_client):
    """A 200,000-character body is counted like any other, and quickly."""
    body = ("word " * 40_000)[:200_000]
    assert stats_line(editor_client, body) == "40,000 words · 174 min read"


def test_the_cheat_sheet_is_folded_beside_the_body(app, editor_client):
    """Every editor page offers the Markdown cheat sheet, closed until it is opened."""
    post_id = create(editor_client)
    for url in ("/editor/posts/new", f"/editor/posts/{post_id}"):
        sheet = page(editor_client.get(url)).select_one("details#markdown-help")
        assert sheet is not None and not sheet.has_attr("open")
        assert sheet.select_one("summary").get_text() == "Markdown cheat sheet and shortcuts"
        assert "[^1]" in sheet.get_text() and "## Section" in sheet.get_text()
