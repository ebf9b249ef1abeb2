"""Error pages: every refusal the app makes has a title that says what happened, never the
500's "Something went wrong"."""

from __future__ import annotations

import pytest
from flask import Flask

from blog.web.errors import TITLES, error_page
from tests.authoring.test_auth import page
from tests.authoring.test_editor import create, save
from tests.authoring.test_review import WRITER_NAME, send_back, team

__all__ = ["team"]

GENERIC = "Something went wrong"
# The 4xx statuses the app answers with: its own refusals, Werkzeug's, and the editor's 409
# and 410 pages.
USED = (400, 403, 404, 405, 409, 410, 413, 414, 422, 429)


@pytest.mark.parametrize("code", USED)
def test_every_refusal_the_app_makes_has_its_own_title(app: Flask, code: int):
    """The page names the kind of refusal in its heading and its title."""
    with app.test_request_context("/"):
        response = error_page(code, "What went wrong, in a sentence.")
    soup = page(response)
    heading = soup.select_one(".error-page h1").get_text(strip=True)
    assert response.status_code == code
    assert heading == TITLES[code] and heading != GENERIC
    assert soup.title.get_text().startswith(TITLES[code])
    assert "What went wrong, in a sentence." in soup.select_one(".error-page").get_text()


def test_a_409_and_a_422_from_the_app_say_what_they_are(app: Flask, team):
    """Sending back a draft that is not in review is a 409; one without a note a 422: each
    page says so, with the reason below."""
    writer, editor = team
    post_id = create(writer, author=WRITER_NAME)
    refused = send_back(editor, post_id, "Too early")
    assert refused.status_code == 409
    soup = page(refused)
    assert soup.select_one(".error-page h1").get_text(strip=True) == TITLES[409]
    assert "not waiting for review" in soup.select_one(".error-page").get_text()
    save(writer, post_id, action="submit-review")
    refused = send_back(editor, post_id, "")
    assert refused.status_code == 422
    soup = page(refused)
    assert soup.select_one(".error-page h1").get_text(strip=True) == TITLES[422]
    assert "Write a note" in soup.select_one(".error-page").get_text()
