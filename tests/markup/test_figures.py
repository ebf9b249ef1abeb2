"""Figures: an image and its caption line as <figure>; wide ones."""

from __future__ import annotations

import pytest

from tests.markup.test_xss import rendered


def test_an_image_with_a_caption_is_a_figure():
    """An image alone on its line, a caption on the next: <figure> and <figcaption>."""
    page = rendered("![A chart](/images/a.png)\nLatency over a *week*.")
    figure = page.figure
    assert figure["class"] == ["figure"] and figure.img["alt"] == "A chart"
    assert figure.figcaption.get_text() == "Latency over a week." and figure.figcaption.em
    assert page.p is None


def test_wide_figures_break_out():
    """`{.wide}` after the image marks the figure wide, and is not shown."""
    figure = rendered("![A chart](/images/a.png){.wide}\nCaption.").figure
    assert figure["class"] == ["figure", "figure-wide"] and "{.wide}" not in str(figure)


@pytest.mark.parametrize(
    "text",
    ["![A chart](/images/a.png)", "See ![icon](/i.png) here.", "![A](/a.png) and text\nmore"],
)
def test_images_without_a_caption_line_stay_as_they_are(text):
    """An image alone, or inside a sentence, is not a figure."""
    assert rendered(text).figure is None
