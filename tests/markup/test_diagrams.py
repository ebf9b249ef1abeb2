"""Diagrams: ```dot fences drawn as inline SVG, sanitized, bounded in time and size."""

from __future__ import annotations

import pickle
import time

import pytest

from blog import markup
from blog.markup import diagrams
from blog.markup.diagrams import DiagramError, DiagramTooSlow, svg_of
from blog.markup.policy import find_violations
from tests.authoring.test_auth import csrf_token, log_in_as, make_editor
from tests.conftest import require
from tests.markup.test_xss import problems, rendered

pytestmark = pytest.mark.usefixtures("graphviz")

PIPELINE = "digraph { rankdir=LR; build -> test -> deploy }"
# Every node joined to every other: Graphviz takes minutes over it.
NODES = " ".join(f"n{i}" for i in range(60))
HEAVY = f"digraph {{ {{{NODES}}} -> {{{NODES}}} }}"


@pytest.fixture(scope="session")
def graphviz() -> None:
    """Skip when Graphviz is not installed (`make setup` installs it)."""
    require(diagrams.dot_path() is not None, "Graphviz's dot is missing: run `make setup`")


def fence(source: str, info: str = "dot") -> str:
    """A fenced block of `source`."""
    return f"```{info}\n{source}\n```\n"


def test_a_dot_fence_is_an_inline_svg_figure():
    """The drawing is SVG in a figure, named for screen readers, captioned by its title."""
    page = rendered(fence(PIPELINE, 'dot title="How a change ships"'))
    figure = page.find("figure", class_="diagram")
    svg = figure.svg
    assert (svg["role"], svg["aria-label"]) == ("img", "How a change ships")
    assert svg["viewbox"] if "viewbox" in svg.attrs else svg["viewBox"]
    assert figure.figcaption.text == "How a change ships"
    assert [text.text for text in svg.find_all("text")] == ["build", "test", "deploy"]


def test_an_untitled_diagram_is_named_after_its_edges():
    """Without a title the drawing's name says what it joins."""
    svg = rendered(fence(PIPELINE)).svg
    assert svg["aria-label"] == "Diagram: build → test; test → deploy"
    assert rendered(fence(PIPELINE)).find("figcaption") is None


def test_the_drawing_follows_the_colour_scheme():
    """Black lines and text are the text colour, and the white page is left out."""
    html = markup.render(fence(PIPELINE)).html
    assert "black" not in html and 'fill="white"' not in html
    assert 'stroke="currentColor"' in html


def test_graphviz_fence_name_works_too_and_the_source_stays_in_the_text():
    """```graphviz is the same; the Markdown keeps the source, the render the drawing."""
    text = fence(PIPELINE, "graphviz")
    assert rendered(text).svg is not None
    assert PIPELINE not in markup.render(text).html


def test_a_diagram_that_does_not_draw_shows_its_source_and_why():
    """A syntax error keeps the source on the page, as code, with Graphviz's message."""
    page = rendered(fence("digraph { a -> }"))
    figure = page.find("figure", class_="diagram-failed")
    assert figure.pre.code.text == "digraph { a -> }"
    assert "Not drawn: syntax error in line 1" in figure.figcaption.text


def test_a_source_over_the_size_limit_is_not_drawn():
    """A source longer than SOURCE_MAX is refused before Graphviz sees it."""
    source = "digraph { " + "a -> b; " * (diagrams.SOURCE_MAX // 8) + "}"
    caption = rendered(fence(source)).find("figure", class_="diagram-failed").figcaption
    assert f"the limit is {diagrams.SOURCE_MAX:,}" in caption.text


def test_a_diagram_over_the_budget_is_too_slow_and_named():
    """Graphviz past the render's budget is killed, and the error names the diagram."""
    start = time.monotonic()
    with pytest.raises(DiagramTooSlow) as raised:
        markup.render(fence(PIPELINE) + "\n" + fence(HEAVY, 'dot title="Mesh"'), time_limit=0.2)
    assert time.monotonic() - start < 15
    assert isinstance(raised.value, markup.TooSlow)
    assert raised.value.diagram == "The diagram “Mesh”"
    assert "The diagram “Mesh” takes too long to draw" in str(raised.value)
    copy = pickle.loads(pickle.dumps(raised.value))
    assert (copy.limit, copy.diagram) == (0.2, "The diagram “Mesh”")


def test_an_untitled_slow_diagram_is_named_by_its_place():
    """Without a title, the message says which diagram of the text it is."""
    with pytest.raises(DiagramTooSlow, match=r"Diagram 2 \(```dot\)"):
        markup.render(fence(PIPELINE) + "\n" + fence(HEAVY), time_limit=0.2)


def test_the_editor_answers_422_for_a_diagram_over_the_budget(app, client, monkeypatch):
    """The preview of a body whose diagram is too slow is a 422 that says so."""
    log_in_as(client, make_editor(app))
    # For this test only: the app is shared by the whole session.
    monkeypatch.setitem(app.config, "MARKDOWN_TIME_LIMIT", 0.2)
    response = client.post(
        "/editor/preview",
        data={"body": fence(HEAVY)},
        headers={"HX-Request": "true", "X-CSRFToken": csrf_token(client, "/editor/")},
    )
    assert response.status_code == 422
    assert "takes too long to render" in response.get_data(as_text=True)


@pytest.mark.parametrize(
    "source",
    [
        'digraph { a [URL="javascript:alert(1)"]; b [href="https://evil.example/"] }',
        'digraph { a [image="/etc/passwd"]; b [shapefile="/etc/hostname"] }',
        'digraph { stylesheet="https://evil.example/x.css"; a }',
        "digraph { a [label=<<b>bold</b><i>it</i>>] }",
        'digraph { a [label="<script>alert(1)</script>"] }',
        'digraph { a [id="s-x" class="highlight" tooltip="t"] }',
        'digraph { a [fontname="x\\" onload=\\"alert(1)"] }',
        'digraph { a [style=filled fillcolor="red:blue"] }',
        'digraph { a [fontcolor="url(#x)" color="url(https://evil.example/#a)"] }',
    ],
)
def test_hostile_dot_gives_only_inert_shapes(source):
    """Links, files, style sheets, HTML labels, ids, quotes in fonts and gradients come out as
    plain shapes and text, with nothing that refers anywhere."""
    page = rendered(fence(source))
    html = str(page)
    assert "<a" not in html and "<image" not in html and "url(" not in html
    assert "javascript" not in html and "evil.example" not in html
    for element in page.find_all(True):
        assert not any(name.startswith("on") or name in ("id", "style") for name in element.attrs)
    assert page.find("script") is None


HOSTILE_SVG = [
    '<svg onload="alert(1)"><script>alert(1)</script><path d="M0 0"/></svg>',
    "<svg><style>*{background:url(https://evil.example/)}</style></svg>",
    '<svg><foreignObject><img src="x" onerror="alert(1)"/></foreignObject></svg>',
    '<svg xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="javascript:alert(1)">'
    '<text x="1" y="1">go</text></a></svg>',
    '<svg><use href="https://evil.example/s.svg#a"/><image href="https://evil.example/p"/></svg>',
    '<svg><set attributeName="href" to="javascript:alert(1)"/><animate attributeName="x"/></svg>',
    '<svg><path d="M0 0" fill="url(https://evil.example/#g)" style="fill:red"/></svg>',
    '<svg><g transform="translate(1) expression(alert(1))"><circle r="1"/></g></svg>',
]


@pytest.mark.parametrize("document", HOSTILE_SVG)
def test_hostile_svg_from_graphviz_is_written_out_inert(document):
    """Whatever dot's output held, only allowed shapes and checked attributes are written."""
    svg = svg_of(document.encode(), "A name")
    assert problems(svg) == [] and find_violations(svg) == []
    for word in ("script", "style", "foreignObject", "href", "<use", "<image", "<set", "url("):
        assert word not in svg
    assert "expression" not in svg and "alert" not in svg


def test_entity_expansion_in_graphviz_output_is_refused():
    """A document declaring entities is not read at all (no billion laughs)."""
    bomb = '<!DOCTYPE svg [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><svg><text>&b;</text></svg>'
    with pytest.raises(DiagramError):
        svg_of(bomb.encode(), "")


def test_more_shapes_than_allowed_are_refused():
    """A drawing of more than MAX_SHAPES elements is not written."""
    shapes = '<circle r="1"/>' * (diagrams.MAX_SHAPES + 1)
    with pytest.raises(DiagramError, match="shapes"):
        svg_of(f"<svg>{shapes}</svg>".encode(), "")


def test_drawings_are_reused_for_the_same_source(monkeypatch):
    """The preview's redraws of an unchanged diagram do not run Graphviz again."""
    text = fence("digraph { reused -> once }")
    first = markup.render(text).html
    monkeypatch.setattr(diagrams, "draw", lambda *args: pytest.fail("drawn again"))
    assert markup.render(text).html == first
