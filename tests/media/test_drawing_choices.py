"""The editor's drawing preview offers the other compositions that suit the words typed, and
choosing one puts its spec in the field."""

from __future__ import annotations

import json

from blog.media.pictures import drawing_choices
from tests.authoring.test_auth import csrf_token, editor_client, page

__all__ = ["editor_client"]

HX_DRAWING = {"HX-Request": "true", "HX-Target": "drawing-preview"}
TITLE = "Autoscaling workers on queue depth instead of CPU"
SUMMARY = "Scaling on queue depth, and alerting on the age of the oldest message, made it react."


def preview(client, **fields: str):
    """What the preview (or a choice button) sends to the editor's drawing route."""
    data = {"illustration": "", "title": TITLE, "summary": SUMMARY, "slug": ""} | fields
    token = csrf_token(client, "/editor/posts/new")
    return client.post("/editor/drawing", data=data, headers={"X-CSRFToken": token} | HX_DRAWING)


def test_the_choices_are_the_kinds_that_suit_the_words_but_the_one_written(app):
    """Best first, at most four, each a spec an editor can also type, with what it draws;
    never the kind already shown."""
    with app.app_context():
        choices = drawing_choices("", TITLE, SUMMARY)
        shown = drawing_choices("", TITLE, SUMMARY, "queue")
    assert 2 <= len(choices) <= 4 and choices[0].spec == "kind: queue"
    assert all(choice.spec.startswith("kind: ") and choice.what for choice in choices)
    assert "kind: queue" not in [choice.spec for choice in shown]


def test_the_preview_offers_each_choice_as_a_button(app, editor_client):
    """Under the drawing, one button per choice, posting the choice to the same route and
    swapping the whole field."""
    shown = page(preview(editor_client))
    buttons = shown.select("ul.drawing-choices button")
    assert shown.select_one("svg")["aria-label"].count("queue") >= 1
    assert buttons and "kind: queue" not in [button.get_text() for button in buttons]
    for button in buttons:
        assert button["data-hx-post"] == "/editor/drawing"
        assert button["data-hx-target"] == "#drawing-field"
        assert json.loads(button["data-hx-vals"])["chosen"] == button.get_text()


def test_choosing_puts_the_spec_in_the_field_which_then_draws_it(app, editor_client):
    """The answer is the field holding the chosen spec in its stored spelling, and the preview
    that loads itself from it."""
    response = preview(editor_client, illustration="kind: tree", chosen="KIND: Pipeline")
    assert response.status_code == 200
    shown = page(response)
    assert shown.select_one("#drawing-field #illustration")["value"] == "kind: pipeline"
    assert shown.select_one("#drawing-field #drawing-preview")["data-hx-trigger"] == "load"
    broken = preview(editor_client, chosen="kind: teapot")
    assert broken.status_code == 422 and page(broken).select_one(".hint-problem")
