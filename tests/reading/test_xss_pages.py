"""Every XSS corpus payload, placed in a post's body, title, summary and alt text, stays inert
on the pages that show it."""

from __future__ import annotations

from collections import Counter

import lxml.html
import pytest
from flask import url_for

from tests.markup.test_xss import ENTRIES, scheme_of

SAFE_SCHEMES = {"", "http", "https", "mailto"}
EMBEDDING = {"iframe", "object", "embed", "foreignobject", "annotation-xml", "use", "image"}
EMBEDDING |= {"animate", "set", "animatetransform", "animatemotion", "mglyph", "maction"}
# The store hands back the text it was given (tests/test_fuzz.py checks that on both stores);
# what the pages make of it is the templates' doing.
pytestmark = pytest.mark.one_store


def fingerprint(html: str) -> tuple[list[str], Counter, list[str]]:
    """Scripts, htmx attributes and unsafe things found in a whole page. (Read with lxml's own
    tree, the parser BeautifulSoup's "lxml" builder drives, without building its objects.)"""
    tags = [e for e in lxml.html.document_fromstring(html).iter() if isinstance(e.tag, str)]
    scripts = sorted(e.get("src") or e.get("type", "inline") for e in tags if e.tag == "script")
    hx = Counter(
        f"{tag.tag}[{name}]"
        for tag in tags
        for name in tag.attrib
        if name.startswith(("hx-", "data-hx"))
    )
    unsafe = [
        f"{tag.tag}[{name}={value!r}]"
        for tag in tags
        for name, value in tag.attrib.items()
        if name.startswith("on")
        or name == "style"
        or (name in {"href", "src", "action"} and scheme_of(str(value)) not in SAFE_SCHEMES)
    ]
    # The Markdown pipeline writes formulas (MathML) and diagrams (SVG), never these.
    unsafe += [tag.tag for tag in tags if tag.tag in EMBEDDING]
    return scripts, hx, unsafe


@pytest.fixture
def baseline(client, posts):
    """The fingerprints of the listing and a post page showing harmless text."""
    [slug] = posts.create(1, title="Plain title", summary="Plain summary", image_alt="Plain alt")
    listing = fingerprint(client.get("/").get_data(as_text=True))
    post = fingerprint(client.get(f"/posts/{slug}").get_data(as_text=True))
    return listing, post


# The corpus in interleaved parts, so that parallel test workers share it.
PARTS = 4


@pytest.mark.parametrize("part", range(PARTS))
def test_payloads_in_every_field_stay_inert(app, client, posts, baseline, part):
    """No payload adds a script, an htmx attribute, an event handler or a dangerous URL."""
    from blog.extensions import db
    from blog.models import Post

    base_listing, base_post = baseline
    with app.test_request_context():  # our own script for Copy buttons, on posts with code
        code_script = url_for("static", filename="js/code.js")
    failures = []
    for number, _, payload in ENTRIES[part::PARTS]:
        with app.app_context():
            db.session.execute(db.delete(Post))
            db.session.commit()
        [slug] = posts.create(  # titles and alt text are capped at their column widths
            1,
            title=payload[:300],
            summary=payload,
            image_alt=payload[:500],
            body=payload,
            slug="payload",
        )
        for url, (scripts, hx, _) in (("/", base_listing), (f"/posts/{slug}", base_post)):
            got_scripts, got_hx, unsafe = fingerprint(client.get(url).get_data(as_text=True))
            got_scripts = [src for src in got_scripts if src != code_script]
            if got_scripts != scripts or got_hx != hx or unsafe:
                failures.append((number, url, got_scripts, got_hx - hx, unsafe))
    assert failures == []
