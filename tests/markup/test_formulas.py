"""Formulas: `$…$` and `$$…$$` as MathML, prices left alone, and TeX that does not read."""

from __future__ import annotations

import pytest

from blog import markup
from blog.markup.formulas import FORMULA_MAX, FormulaError, to_mathml
from tests.markup.test_xss import rendered


def test_inline_formula_is_mathml_with_its_tex():
    """`$…$` in a sentence is inline MathML that carries its TeX as an annotation."""
    page = rendered("Energy is $E = mc^2$ here.")
    math = page.p.math
    assert math["display"] == "inline"
    assert [mi.text for mi in math.find_all("mi")] == ["E", "m", "c"]
    assert math.msup.mn.text == "2"
    annotation = math.semantics.annotation
    assert (annotation["encoding"], annotation.text) == ("application/x-tex", "E = mc^2")
    assert page.p.get_text().startswith("Energy is ")


def test_display_formula_spans_lines_and_stands_alone():
    """A paragraph that is one `$$…$$` is a display formula, not inside a paragraph."""
    page = rendered("Sum:\n\n$$\n\\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}\n$$\n\nDone.")
    [math] = page.find_all("math")
    assert math["display"] == "block" and math.parent.name == "[document]"
    assert math.mfrac is not None and math.munderover is not None


@pytest.mark.parametrize(
    "text",
    [
        "It costs $5 and $10.",
        "Between $5-$10 a month.",
        "Prices: $20,000 and $30,000.",
        "A lone $ sign.",
        "Escaped \\$x\\$ dollars.",
        "`$x$` is code.",
    ],
)
def test_dollars_in_prose_stay_text(text):
    """Prices, a lone dollar, escaped dollars and code keep their dollars as text."""
    page = rendered(text)
    assert page.find("math") is None
    assert "$" in page.get_text()


def test_escaped_dollar_is_a_dollar_sign():
    """`\\$` shows a dollar sign, without the backslash."""
    assert rendered("Pay \\$5 now.").get_text() == "Pay $5 now."


def test_emphasis_does_not_reach_inside_a_formula():
    """Underscores and asterisks inside a formula are TeX, not Markdown emphasis."""
    page = rendered("See $a_1 * b_1 * c_1$ here.")
    assert page.find("em") is None and len(page.find_all("msub")) == 3


@pytest.mark.parametrize(
    ("tex", "reason"),
    [
        ("\\foo{x}", "\\foo is not a command"),
        ("\\frac{a}", "missing a part"),
        ("x^{2", "braces"),
        ("}", "braces"),
        ("x_", "does not read as TeX"),
        ("x" * (FORMULA_MAX + 1), "the limit is"),
    ],
)
def test_a_formula_that_does_not_read_is_code_saying_why(tex, reason):
    """Bad TeX is shown as its source in code, with a note why, never an error page."""
    with pytest.raises(FormulaError, match=reason.replace("\\", "\\\\")):
        to_mathml(tex)
    page = rendered(f"Try ${tex}$ now.")
    code = page.find("code", class_="math-error")
    assert code.text == f"${tex}$"
    assert code["title"].startswith("Not shown as a formula: ") and reason in code["title"]
    assert page.find("math") is None


@pytest.mark.parametrize(
    "tex",
    [
        "\\text{<script>alert(1)</script>}",
        "\\text{<img src=x onerror=alert(1)>}",
        "\\href{javascript:alert(1)}{x}",
        "\\style{background:url(https://evil.example/)}{x}",
        "\\color{red}{x} \\mathcolor{blue}{y}",
        "\\text{</math><img src=x onerror=alert(1)>}",
        "\\text{&#x3C;script&#x3E;}",
        "\\text{\U0010ffff \x01 &#xD800;}",
    ],
)
def test_hostile_tex_gives_only_inert_mathml(tex):
    """Markup in TeX text stays text; links, styles and colours are left out."""
    page = rendered(f"${tex}$")
    assert page.find("script") is None and page.find("img") is None
    for element in page.find_all(True):
        assert not {"href", "style", "mathcolor", "mathbackground"} & set(element.attrs)


def test_annotation_xml_is_never_written():
    """No TeX makes <annotation-xml>, the MathML element that can hold HTML."""
    html = markup.render("$\\text{x}$ and $$\\frac{1}{2}$$").html
    assert "annotation-xml" not in html and html.count("<annotation ") == 2


def test_formula_is_read_as_its_tex_in_the_summary():
    """The summary and word count read a formula as its TeX, once."""
    result = markup.render("Cost grows as $O(n^2)$ in the worst case.")
    assert result.summary == "Cost grows as O(n^2) in the worst case."
