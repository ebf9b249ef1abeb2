"""The link processors' one-pass scans give exactly what Python-Markdown's own walks give."""

from __future__ import annotations

import markdown
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from blog import markup
from blog.markup.links import LinearLinksExtension

SAMPLES = [
    "[a link](/posts/pools) and ![a picture](/images/x.png)",
    '[titled](/x "The title") and [single](/x \'t\') and [angle](<a b> "t")',
    "[nested [brackets] inside](/x) and [[double]](/y)",
    "[parens](/wiki/Pool_(computing)) and [unclosed](/x",
    '[quote in the address](/x"y) and [a title with a paren](/x "a (b")',
    '[ref][r] and [r][] and [r] and ![img][r] and ![r]\n\n[r]: /ref "Ref title"',
    "[a](  /spaced  ) [b]( ) [c]() [d](\n/x\n)",
    "[open [open](/x) ] ] [ [",
    "\\[escaped](/x) and `[code](/x)` and [x]\\(y)",
    "[a](/b)(c) [a](/b(c)(d)) [a](/b((c)) [a](/b))c",
]


def converter(linear: bool) -> markdown.Markdown:
    """The pipeline's Markdown converter, with or without the one-pass link scans."""
    extensions = [
        extension
        for extension in markup._EXTENSIONS
        if linear or not isinstance(extension, LinearLinksExtension)
    ]
    return markdown.Markdown(extensions=extensions, extension_configs=markup._EXTENSION_CONFIGS)


LINEAR, ORIGINAL = converter(True), converter(False)


def both(text: str) -> tuple[str, str]:
    """The HTML of `text` with the one-pass scans and with Python-Markdown's own."""
    LINEAR.reset()
    ORIGINAL.reset()
    return LINEAR.convert(text), ORIGINAL.convert(text)


def test_every_link_processor_is_replaced():
    """The six link and image processors scan once; their order and names are unchanged."""
    names = [type(p).__name__ for p in LINEAR.inlinePatterns]
    original = [type(p).__name__ for p in ORIGINAL.inlinePatterns]
    assert len(names) == len(original)
    changed = [(old, new) for old, new in zip(original, names, strict=True) if old != new]
    assert changed == [
        ("ReferenceInlineProcessor", "_Reference"),
        ("LinkInlineProcessor", "_Link"),
        ("ImageInlineProcessor", "_Image"),
        ("ImageReferenceInlineProcessor", "_ImageReference"),
        ("ShortReferenceInlineProcessor", "_ShortReference"),
        ("ShortImageReferenceInlineProcessor", "_ShortImageReference"),
    ]


@pytest.mark.parametrize("text", SAMPLES)
def test_written_links_render_as_before(text):
    linear, original = both(text)
    assert linear == original


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet="[]()!\"' a\\<>`\n:/", max_size=40))
@example("[](" * 5 + '"')
@example("[" * 5 + "](" * 5 + ")" * 5)
def test_any_text_of_link_characters_renders_as_before(text):
    linear, original = both(text)
    assert linear == original


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.sampled_from(["[", "]", "(", ")", "![", "](", '"', "'", "x", " ", "\n", "[r]", "<a>"]),
        max_size=30,
    )
)
def test_runs_of_link_pieces_render_as_before(pieces):
    text = "".join(pieces) + "\n\n[r]: /ref 'Ref'"
    linear, original = both(text)
    assert linear == original
