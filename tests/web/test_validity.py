"""Every kind of page and htmx fragment the app serves is valid HTML to the Nu HTML checker."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import sqlalchemy as sa
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import presence, store
from blog.extensions import db, limiter
from blog.media.images import store_image
from blog.models import ADMIN, WRITER, Author, OldAddress, Post, Topic
from blog.web.errors import error_page
from tests.authoring.test_auth import csrf_token, log_in_as, make_editor
from tests.authoring.test_editor import HX_EDITOR, HX_TABLE, create, current_form, save
from tests.authoring.test_revisions import autosave
from tests.authoring.test_seo_fields import with_social_image
from tests.conftest import require
from tests.media.test_images import picture_bytes

ROOT = Path(__file__).resolve().parents[2]
# Validity is the templates' doing, whichever store the page's text came from.
pytestmark = pytest.mark.one_store
VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"

# A body that uses most of what the Markdown pipeline can produce.
RICH_BODY = """Some *emphasis*, **strong** text, `code` and a [link](https://example.com/a).

## A heading

1. One
2. Two

- [x] A task
- Plain item

> A quotation.

| Left | Right |
|:-----|------:|
| a    | b     |

```python
print("hello")
```

> מה שלומך?
>
> > مرحبا بالعالم!

|   | Count |
|---|:-----:|
| a | 1     |

    indented code, no language

### A smaller heading

Term<br>and a footnote.[^1]

![A picture](https://example.com/pic.png)

[^1]: The footnote.
"""

# Fragments are not whole documents, so each is checked inside a minimal document shell,
# placed where htmx puts its parts: a leading <title> becomes the document's title (htmx
# sets the tab's title from it and drops the element), out-of-band elements are swapped
# into the page by id (they stand in the body here), and the rest goes inside the swap
# target, which for "read more" is the card list, an <ol>.
SHELL = (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
    "<title>{title}</title>\n</head>\n<body>\n{body}\n</body>\n</html>\n"
)
LEADING_TITLE = re.compile(r"\s*<title>(.*?)</title>", re.S)
FIRST_OUT_OF_BAND = re.compile(r"<[a-z]+\b[^>]*\sdata-hx-swap-oob=")


def shell(fragment: str, target: str | None = None) -> str:
    """A fragment as a whole document: its title in the head, the rest in the body, inside
    a `target` element (e.g. "ol") when the swap puts it inside one."""
    title = "Fragment"
    found = LEADING_TITLE.match(fragment)
    if found:
        title, fragment = found.group(1), fragment[found.end() :]
    if target:
        oob = FIRST_OUT_OF_BAND.search(fragment)
        cut = oob.start() if oob else len(fragment)
        fragment = f"<{target}>{fragment[:cut]}</{target}>\n{fragment[cut:]}"
    return SHELL.format(title=title, body=fragment)


def htmx(target: str) -> dict[str, str]:
    """The headers htmx sends for a swap aimed at the element with id `target`."""
    return {"HX-Request": "true", "HX-Target": target}


def body(response, status: int = 200) -> str:
    """A response's HTML, after checking its status."""
    assert response.status_code == status, (response.status_code, response.request.path)
    return response.get_data(as_text=True)


def revision_ids(client: FlaskClient, post_id: int) -> list[int]:
    """The ids of a post's revisions, newest first, as its history page lists them."""
    soup = BeautifulSoup(body(client.get(f"/editor/posts/{post_id}/revisions")), "lxml")
    listed = soup.select("#revision-list li[id^=revision-]:not(#revision-now)")
    return [int(row["id"].removeprefix("revision-")) for row in listed]


def reader_documents(app: Flask, client: FlaskClient, posts) -> dict[str, str]:
    """What readers are served: listings, a post, search, login and error pages."""
    posts.topics("Databases", "Operations")
    posts.create(26, topics=("Databases", "Operations"))
    posts.create(1, featured=True)
    posts.create(3, editors_pick=True, topics=("Operations",))
    [rich] = posts.create(1, title="A rich post", body=RICH_BODY, summary="Every feature.")
    with app.app_context():
        post = db.session.scalar(sa.select(Post).where(Post.slug == rich))
        post.image = store_image(picture_bytes("JPEG", (1000, 500)))  # copies: srcset
        post.image_alt = "An orange square"
        post.author.bio = "Writes about <databases>.\nAnd & more."
        post.author.url = "https://ada.example/"
        post.author.avatar = store_image(picture_bytes("PNG", (600, 600)))
        # A stored image in the body too: the render gives it a <picture> with srcset.
        store.set_body(post, f"{RICH_BODY}\n![A stored chart](/images/{post.image.sha256}.jpg)\n")
        topic = db.session.scalar(sa.select(Topic).where(Topic.slug == "databases"))
        topic.description = "Storage, queries & <indexes>."
        db.session.commit()
    more_posts = htmx("post-list")
    docs = {
        "home": body(client.get("/")),
        "home-page-2": body(client.get("/?page=2")),
        "topic": body(client.get("/topics/databases")),
        "topic-page-2": body(client.get("/topics/databases?page=2")),
        "post": body(client.get(f"/posts/{rich}")),
        "post-plain": body(client.get("/posts/post-number-1")),
        "author": body(client.get("/authors/ada-example")),
        "author-page-2": body(client.get("/authors/ada-example?page=2")),
        "search-empty": body(client.get("/search")),
        "search": body(client.get("/search?q=post")),
        "search-in-topic": body(client.get("/search?q=post&topic=operations")),
        "search-page-2": body(client.get("/search?q=post&page=2")),
        "search-nothing-found": body(client.get("/search?q=zanzibar&topic=operations")),
        "search-no-words": body(client.get("/search?q=%21%21")),
        "login": body(client.get("/login")),
        "login-refused": body(
            client.post(
                "/login",
                data={"csrf_token": csrf_token(client), "email": "x@example.com", "password": "x"},
            ),
            401,
        ),
        "error-400": body(client.get("/?page=0"), 400),
        "error-404": body(client.get("/posts/no-such-post"), 404),
        "error-405": body(client.post("/"), 405),
    }
    limiter.reset()  # the refused login above counts against nobody else's tests
    with app.test_request_context("/"):
        docs["error-500"] = error_page(500).get_data(as_text=True)
    fragments = {
        "fragment-home-all-posts": (client.get("/", headers=htmx("all-posts")), None),
        "fragment-topic": (client.get("/topics/databases", headers=htmx("all-posts")), None),
        "fragment-home-read-more": (client.get("/?page=2", headers=more_posts), "ol"),
        "fragment-topic-read-more": (
            client.get("/topics/databases?page=2", headers=more_posts),
            "ol",
        ),
        "fragment-author-read-more": (
            client.get("/authors/ada-example?page=2", headers=more_posts),
            "ol",
        ),
        "fragment-author-all-posts": (
            client.get("/authors/ada-example", headers=htmx("all-posts")),
            None,
        ),
        "fragment-search-main": (client.get("/search?q=post", headers=htmx("main")), None),
        "fragment-search-empty": (client.get("/search", headers=htmx("main")), None),
        "fragment-search-results": (
            client.get("/search?q=post&topic=operations", headers=htmx("search-results")),
            None,
        ),
        "fragment-search-read-more": (
            client.get("/search?q=post&page=2", headers=htmx("result-list")),
            "ol",
        ),
    }
    docs |= {name: shell(body(response), target) for name, (response, target) in fragments.items()}
    return docs


def editor_documents(app: Flask, client: FlaskClient) -> dict[str, str]:
    """What a logged-in editor is served: the post list, the editor, history and trash."""
    log_in_as(client, make_editor(app))
    post_id = create(
        client,
        title="Shared post",
        body="First line.\nSecond line.",
        illustration="kind: bars; values: 800 ms, 120 ms",
    )
    changed = save(client, post_id, body="First line.\nA changed line.", title="Renamed")
    assert changed.status_code == 303
    assert autosave(client, post_id, body="Typed but not saved.").status_code == 204
    offer = client.get(f"/editor/posts/{post_id}/autosave")
    older = revision_ids(client, post_id)[-1]
    doomed = create(client, title="A post to delete")
    described = create(client, title="Described", meta_description="For search engines.")
    assert with_social_image(client, described, picture_bytes()).status_code == 303
    live = create(client, title="Live with draft changes", status="published")
    assert save(client, live, action="save", body="Changes not yet live.").status_code == 303
    docs = {
        "editor-pending": body(client.get(f"/editor/posts/{live}")),
        "editor-update-question": body(save(client, live, action="update")),
        "editor-typed-preview": body(
            client.post("/editor/posts/preview", data=current_form(client, live))
        ),
        "editor-index": body(client.get("/editor/")),
        "editor-index-drafts": body(client.get("/editor/?status=draft")),
        "editor-index-none-scheduled": body(client.get("/editor/?status=scheduled")),
        "editor-new": body(client.get("/editor/posts/new")),
        "editor-edit": body(client.get(f"/editor/posts/{post_id}")),
        "editor-preview": body(client.get(f"/editor/posts/{post_id}/preview")),
        "editor-edit-social-image": body(client.get(f"/editor/posts/{described}")),
        "editor-preview-social-image": body(client.get(f"/editor/posts/{described}/preview")),
        "editor-meta-description-refused": body(
            save(client, described, meta_description="x " * 200), 422
        ),
        "editor-revisions": body(client.get(f"/editor/posts/{post_id}/revisions")),
        "editor-revision-compared": body(
            client.get(f"/editor/posts/{post_id}/revisions?revision={older}")
        ),
        "editor-delete": body(client.get(f"/editor/posts/{doomed}/delete")),
    }
    token = csrf_token(client, f"/editor/posts/{doomed}/delete")
    assert (
        client.post(f"/editor/posts/{doomed}/delete", data={"csrf_token": token}).status_code == 303
    )
    docs["editor-trash"] = body(client.get("/editor/trash"))
    docs["editor-trash-empty"] = body(client.get("/editor/trash/empty"))
    docs["editor-revisions-deleted"] = body(client.get(f"/editor/posts/{doomed}/revisions"))
    docs |= taxonomy_documents(app, client)
    stale = current_form(client, post_id)
    assert save(client, post_id, body="Someone else's line.").status_code == 303
    with app.app_context():  # another editor has the post open: the presence note shows
        presence.here(post_id, make_editor(app, "other@example.com", name="Other Editor"))
        db.session.commit()
    fragments = {
        "fragment-editor-table": (client.get("/editor/?status=draft", headers=HX_TABLE), 200),
        "fragment-revision-detail": (
            client.get(
                f"/editor/posts/{post_id}/revisions?revision={older}",
                headers=htmx("revision-detail"),
            ),
            200,
        ),
        "fragment-autosave-offer": (offer, 200),
        "fragment-editor-alert": (client.get("/editor/posts/999999", headers=HX_EDITOR), 404),
        "fragment-editor-conflict": (
            client.post(
                f"/editor/posts/{post_id}",
                data=stale | {"body": "A line of this editor's."},
                headers=HX_EDITOR,
            ),
            409,
        ),
        "fragment-editor-preview": (
            client.post(
                "/editor/preview",
                data={"body": RICH_BODY},
                headers=htmx("preview") | {"X-CSRFToken": csrf_token(client, "/editor/")},
            ),
            200,
        ),
        "fragment-drawing-preview": (
            client.post(
                "/editor/drawing",
                data={"illustration": "kind: bars; values: 800 ms, 120 ms", "title": "Renamed"},
                headers=htmx("drawing-preview") | {"X-CSRFToken": csrf_token(client, "/editor/")},
            ),
            200,
        ),
        "fragment-drawing-problem": (
            client.post(
                "/editor/drawing",
                data={"illustration": "kind: pie"},
                headers=htmx("drawing-preview") | {"X-CSRFToken": csrf_token(client, "/editor/")},
            ),
            422,
        ),
        "fragment-slug-hint": (
            client.get("/editor/slug?title=Shared+post", headers=htmx("slug-hint")),
            200,
        ),
        "fragment-presence": (
            client.post(
                f"/editor/posts/{post_id}/presence",
                headers=htmx("presence") | {"X-CSRFToken": csrf_token(client, "/editor/")},
            ),
            200,
        ),
    }
    docs |= {name: shell(body(response, status)) for name, (response, status) in fragments.items()}
    return docs


def taxonomy_documents(app: Flask, client: FlaskClient) -> dict[str, str]:
    """/editor/topics and /editor/authors, a topic's and an author's page (one refusing a
    rename), and the post editor asking to confirm a new topic and author."""
    with app.app_context():
        topic_id = db.session.scalar(sa.select(Topic.id).where(Topic.slug == "databases"))
        author_id = db.session.scalar(sa.select(Author.id))
        db.session.get_one(Topic, topic_id).description = "Storage & queries."
        db.session.add(Topic(name="Unused", slug="unused", position=9))
        db.session.commit()
        unused = db.session.scalar(sa.select(Topic.id).where(Topic.slug == "unused"))
    token = csrf_token(client, "/editor/topics")
    refused = client.post(
        f"/editor/topics/{topic_id}/rename",
        data={"csrf_token": token, "name": "Unused", "shown_name": "Databases"},
    )
    asked = client.post(
        "/editor/posts/new",
        data={
            "csrf_token": token,
            "title": "New names",
            "topics": "Databases, Reliabilty",
            "author": "Ada Edtor",
            "status": "draft",
        },
    )
    return {
        "editor-topics": body(client.get("/editor/topics")),
        "editor-topic": body(client.get(f"/editor/topics/{topic_id}")),
        "editor-topic-refused": body(refused, 409),
        "editor-authors": body(client.get("/editor/authors")),
        "editor-author": body(client.get(f"/editor/authors/{author_id}")),
        "editor-new-names": body(asked, 422),
        "editor-merge-question": body(
            client.get(f"/editor/topics/{topic_id}/merge", query_string={"into": unused})
        ),
    }


def account_and_link_documents(app: Flask, client: FlaskClient) -> dict[str, str]:
    """An admin's accounts page (an invitation just made, one refused), a draft's links (one
    just made, then listed) and a moved post's old addresses: pages with a form per row."""
    log_in_as(client, make_editor(app, "admin@example.com", name="Ada Admin", role=ADMIN))
    make_editor(app, "writer@example.com", name="Wren Writer", role=WRITER)
    token = csrf_token(client, "/editor/accounts")
    invited = client.post(
        "/editor/accounts/invite",
        data={"csrf_token": token, "email": "new@example.com", "role": WRITER},
    )
    refused = client.post(
        "/editor/accounts/invite", data={"csrf_token": token, "email": "nope", "role": WRITER}
    )
    draft = create(client, title="Linked draft")
    made = client.post(f"/editor/posts/{draft}/links/new", data={"csrf_token": token})
    moved = create(client, title="Moved in", status="published")
    with app.app_context():
        db.session.add_all(
            OldAddress(path=path, post_id=moved) for path in ("/2019/moved-in", "/old/moved")
        )
        db.session.commit()
    return {
        "editor-accounts-invited": body(invited, 201),
        "editor-accounts-refused": body(refused, 422),
        "editor-draft-link-made": body(made, 201),
        "editor-draft-links": body(client.get(f"/editor/posts/{draft}/links")),
        "editor-old-addresses": body(client.get(f"/editor/posts/{moved}/old-addresses")),
    }


# The checker's schema evaluation recurses deeply: with the quick compiler alone (half the
# CPU time of the default for a run this short) the default thread stack overflows, and the
# checker then prints a warning where its report should be.
JAVA = ("java", "-Xss8m", "-XX:TieredStopAtLevel=1", "-jar")


def nu_errors(files: list[Path]) -> list[dict]:
    """Run the Nu HTML checker once over `files`; its error messages."""
    run = subprocess.run(
        [*JAVA, str(VNU_JAR), "--errors-only", "--format", "json", *map(str, files)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    # The report is a JSON document on standard error; the exit status is 1 with errors.
    try:
        report = json.loads(run.stderr)
    except json.JSONDecodeError:
        pytest.fail(f"the Nu HTML checker gave no report (exit {run.returncode}):\n{run.stderr}")
    return [m for m in report["messages"] if m["type"] != "info"]


def test_every_page_and_fragment_passes_the_nu_html_checker(app, client, posts, tmp_path):
    """Listings, posts, search, login, error and editor pages, and the fragments htmx swaps
    into them, have no error by the Nu HTML checker (one run of it over all of them)."""
    require(
        shutil.which("java") is not None,
        "the Nu HTML checker needs java: `make test-sqlite` installs Debian's default-jre-headless",
    )
    require(VNU_JAR.is_file(), f"the Nu HTML checker is missing at {VNU_JAR}: run `make setup`")
    docs = reader_documents(app, client, posts)
    docs |= editor_documents(app, app.test_client())
    docs |= account_and_link_documents(app, app.test_client())
    files = []
    for name, html in docs.items():
        path = tmp_path / f"{name}.html"
        path.write_text(html, encoding="utf-8")
        files.append(path)
    errors = nu_errors(files)
    report = "\n".join(
        f"{Path(m.get('url', '?')).name}:{m.get('lastLine', '?')}: {m['message']}"
        f" [{m.get('extract', '').strip()}]"
        for m in errors
    )
    assert not errors, f"{len(errors)} errors by the Nu HTML checker:\n{report}"
