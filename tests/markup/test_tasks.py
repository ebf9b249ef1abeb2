"""Task lists: boxes that say done, without form controls."""

from __future__ import annotations

from tests.markup.test_xss import rendered


def test_task_lists_have_boxes_that_say_done():
    """`[ ]` and `[x]` become boxes named Done and Not done; other items stay plain."""
    page = rendered("- [ ] write it\n- [x] test it\n- [X] ship it\n- plain\n- [y] not a box")
    assert page.ul["class"] == ["task-list"]
    boxes = page.select("li .task-box")
    assert [(box["role"], box["aria-label"], box.text) for box in boxes] == [
        ("img", "Not done", "☐"),
        ("img", "Done", "☑"),
        ("img", "Done", "☑"),
    ]
    items = page.find_all("li")
    assert [item.get("class") for item in items] == [
        ["task"],
        ["task", "task-done"],
        ["task", "task-done"],
        None,
        None,
    ]
    assert items[0].get_text() == "☐ write it" and page.find("input") is None


def test_loose_task_lists_work_too():
    """Items with paragraphs (a blank line between them) are tasks as well."""
    page = rendered("- [x] first\n\n- [ ] second")
    assert len(page.select("li.task p .task-box")) == 2
