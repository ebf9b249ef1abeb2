"""Keys (`++ctrl+c++`), abbreviations and marked text (`==x==`)."""

from __future__ import annotations

from tests.markup.test_xss import rendered


def test_keys_abbreviations_and_marked_text():
    """`++ctrl+c++` is keys, `*[HTML]:` an abbreviation, `==x==` marked text."""
    page = rendered("Press ++ctrl+c++ to copy ==this== HTML.\n\n*[HTML]: Hypertext Markup Language")
    assert [kbd.text for kbd in page.find_all("kbd")] == ["Ctrl", "C"]
    assert page.find("mark").text == "this"
    assert (page.abbr.text, page.abbr["title"]) == ("HTML", "Hypertext Markup Language")


def test_hostile_abbreviation_titles_are_text():
    """An abbreviation's title cannot carry markup or handlers."""
    page = rendered('XSS here.\n\n*[XSS]: "><img src=x onerror=alert(1)>')
    assert page.img is None and "onerror" in page.abbr["title"]
