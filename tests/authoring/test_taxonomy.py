"""Tidying topics and authors (/editor/topics, /editor/authors) and confirming new ones in the
post form: renames with 301s, merges, descriptions, deletes, and every refusal."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient

from blog.authoring import store
from blog.extensions import db
from blog.models import Author, Post, PostTopic, Topic, TopicRedirect, utcnow
from blog.web.converters import MAX_ROW_ID
from blog.web.versions import data_version
from tests.authoring.test_auth import csrf_token, page
from tests.authoring.test_editor import editor_client, new_post_form
from tests.media.test_images import picture_bytes

__all__ = ["editor_client"]


def topic_id(app: Flask, slug: str) -> int:
    """The id of the topic with this slug."""
    with app.app_context():
        return db.session.scalar(sa.select(Topic.id).where(Topic.slug == slug))


def author_id(app: Flask, slug: str) -> int:
    """The id of the author with this slug."""
    with app.app_context():
        return db.session.scalar(sa.select(Author.id).where(Author.slug == slug))


def act(client: FlaskClient, url: str, **fields: object):
    """Post one of the tidying forms with a valid CSRF token."""
    token = csrf_token(client, "/editor/topics")
    return client.post(url, data={"csrf_token": token} | fields)


def rename(client: FlaskClient, kind: str, row_id: int, name: str, shown: str | None = None):
    """Rename a topic or author, as its page shows it (or as it showed `shown`)."""
    if shown is None:
        form = page(client.get(f"/editor/{kind}/{row_id}"))
        shown = form.select_one('input[name="shown_name"]')["value"]
    return act(client, f"/editor/{kind}/{row_id}/rename", name=name, shown_name=shown)


def problem(response) -> str:
    """The refusal shown beside the form."""
    found = page(response).select_one(".form-problems, .error-page")
    assert found is not None, response.get_data(as_text=True)[:500]
    return " ".join(found.get_text().split())


def version(app: Flask) -> int:
    """The data version cached pages depend on."""
    with app.app_context():
        return data_version()


# The post form: new names are confirmed --------------------------------------------------------


def test_a_misspelt_topic_is_not_made_until_confirmed(app, editor_client, posts):
    """A name matching no topic is refused with every word kept and a box to create it;
    ticked, the save makes it."""
    posts.topics("Reliability", "Databases")
    form = new_post_form(editor_client, topics="databases , Reliabilty", confirm_new=[])
    response = editor_client.post("/editor/posts/new", data=form)
    assert response.status_code == 422
    soup = page(response)
    assert "“Reliabilty” is not a topic yet" in soup.select_one("#topics-error").get_text()
    assert soup.select_one("#title")["value"] == form["title"]
    assert soup.select_one("#topics")["value"] == "databases , Reliabilty"
    box = soup.select_one('input[name="confirm_new"]')
    assert box["value"] == "topic:reliabilty" and not box.has_attr("checked")
    assert soup.select_one(f'label[for="{box["id"]}"]').get_text() == (
        "Create the new topic “Reliabilty”"
    )
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Topic.id))) == 2
        assert db.session.scalar(sa.select(sa.func.count(Post.id))) == 0

    form["confirm_new"] = ["topic:reliabilty"]
    assert editor_client.post("/editor/posts/new", data=form).status_code == 303
    with app.app_context():
        post = db.session.scalar(sa.select(Post))
        assert [topic.name for topic in post.topics] == ["Databases", "Reliabilty"]


def test_existing_names_in_another_case_need_no_confirmation(app, editor_client, posts):
    """Case and spacing do not make a new topic or author (the store's one slug rule)."""
    posts.create(1, topics=("Developer tools",))
    form = new_post_form(
        editor_client, topics="  developer   TOOLS ", author="ada  EXAMPLE", confirm_new=[]
    )
    assert editor_client.post("/editor/posts/new", data=form).status_code == 303
    with app.app_context():
        assert db.session.scalars(sa.select(Topic.name)).all() == ["Developer tools"]
        assert db.session.scalars(sa.select(Author.name)).all() == ["Ada Example"]


def test_a_new_author_is_confirmed_but_the_editors_own_name_is_not(app, client, posts):
    """ "Ada Edtor" is asked about; the logged-in editor's own name (the form's default) is
    made without asking."""
    from tests.authoring.test_auth import log_in_as, make_editor

    posts.topics("Databases")
    log_in_as(client, make_editor(app, name="Grace Editor"))
    refused = client.post(
        "/editor/posts/new", data=new_post_form(client, author="Ada Edtor", confirm_new=[])
    )
    assert refused.status_code == 422
    assert "“Ada Edtor” is not a author yet" not in problem(refused)
    assert "“Ada Edtor” is not an author yet" in page(refused).select_one("#author-error").text
    mine = client.post(
        "/editor/posts/new", data=new_post_form(client, author="Grace Editor", confirm_new=[])
    )
    assert mine.status_code == 303
    with app.app_context():
        assert db.session.scalars(sa.select(Author.name)).all() == ["Grace Editor"]


def test_a_renamed_topics_old_name_finds_the_new_one(app, editor_client, posts):
    """After a rename, the old name typed in a post form files the post under the topic."""
    posts.create(1, topics=("Reliabilty",))
    assert (
        rename(editor_client, "topics", topic_id(app, "reliabilty"), "Reliability").status_code
        == 303
    )
    form = new_post_form(editor_client, topics="Reliabilty", confirm_new=[])
    assert editor_client.post("/editor/posts/new", data=form).status_code == 303
    with app.app_context():
        assert db.session.scalars(sa.select(Topic.name)).all() == ["Reliability"]


# Lists and pages ----------------------------------------------------------------------------


def test_the_lists_show_counts_and_need_a_login(app, client, editor_client, posts):
    """Every topic with its posts and description; every author with theirs."""
    posts.create(2, topics=("Databases", "Frontend"))
    posts.topics("Unused")
    soup = page(editor_client.get("/editor/topics"))
    rows = {
        row.select_one("th").get_text(strip=True): row.select_one(".post-count").get_text()
        for row in soup.select("#topic-table tbody tr")
    }
    assert rows == {"Databases": "2", "Frontend": "2", "Unused": "0"}
    authors = page(editor_client.get("/editor/authors"))
    assert [row.get_text(strip=True) for row in authors.select("#author-table .post-count")] == [
        "2"
    ]
    anonymous = app.test_client()
    for url in (
        "/editor/topics",
        "/editor/authors",
        f"/editor/topics/{topic_id(app, 'databases')}",
    ):
        assert anonymous.get(url).status_code == 302
    refused = anonymous.post(
        f"/editor/topics/{topic_id(app, 'unused')}/delete",
        data={"csrf_token": csrf_token(anonymous)},
    )
    assert refused.status_code == 303 and "/login" in refused.headers["Location"]
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Topic.id))) == 3


@pytest.mark.parametrize("kind", ["topics", "authors"])
@pytest.mark.parametrize("raw", ["999999", str(MAX_ROW_ID), str(MAX_ROW_ID + 1), "1" + "0" * 30])
def test_unknown_and_huge_ids_are_404(editor_client, kind, raw):
    """An id no row has, or one no column could hold, is a plain 404 on every route."""
    assert editor_client.get(f"/editor/{kind}/{raw}").status_code == 404
    for action in ("rename", "merge", "delete"):
        response = act(editor_client, f"/editor/{kind}/{raw}/{action}", name="X", into="1")
        assert response.status_code == 404, action


def test_a_form_without_its_token_changes_nothing(app, editor_client, posts):
    """CSRF: a post without the token is refused (400) and the topic keeps its name."""
    posts.create(1)
    response = editor_client.post(
        f"/editor/topics/{topic_id(app, 'databases')}/rename", data={"name": "Forged"}
    )
    assert response.status_code == 400
    with app.app_context():
        assert db.session.scalars(sa.select(Topic.name)).all() == ["Databases"]


# Renaming -----------------------------------------------------------------------------------


def test_a_renamed_topics_old_addresses_answer_301(app, editor_client, client, posts):
    """The page, its later pages and its feeds move with a 301; the description shows."""
    posts.create(12, topics=("Reliabilty",))
    before = version(app)
    row = topic_id(app, "reliabilty")
    response = rename(editor_client, "topics", row, "Reliability")
    assert response.status_code == 303
    assert response.headers["Location"] == f"/editor/topics/{row}"
    assert version(app) > before
    moved = client.get("/topics/reliabilty")
    assert moved.status_code == 301 and moved.headers["Location"] == "/topics/reliability"
    later = client.get("/topics/reliabilty?page=2")
    assert later.status_code == 301 and later.headers["Location"] == "/topics/reliability?page=2"
    feed = client.get("/topics/reliabilty/feed.atom")
    assert feed.status_code == 301
    assert feed.headers["Location"] == "/topics/reliability/feed.atom"
    assert client.get("/topics/reliability").status_code == 200
    assert client.get("/topics/nothing-ever").status_code == 404
    shown = page(editor_client.get(f"/editor/topics/{row}"))
    assert "/topics/reliabilty" in shown.get_text()


def test_two_renames_lead_straight_and_renaming_back_works(app, editor_client, client, posts):
    """old-old and old both lead to the present address in one hop; going back to an old
    name takes its address back, with no loop."""
    posts.create(1, topics=("Go",))
    row = topic_id(app, "go")
    assert rename(editor_client, "topics", row, "Golang").status_code == 303
    assert rename(editor_client, "topics", row, "Go language").status_code == 303
    for old in ("go", "golang"):
        response = client.get(f"/topics/{old}")
        assert (response.status_code, response.headers["Location"]) == (301, "/topics/go-language")
    assert rename(editor_client, "topics", row, "Go").status_code == 303
    assert client.get("/topics/go").status_code == 200
    for old in ("golang", "go-language"):
        assert client.get(f"/topics/{old}").headers["Location"] == "/topics/go"
    with app.app_context():
        slugs = db.session.scalars(sa.select(TopicRedirect.old_slug).order_by("old_slug")).all()
    assert slugs == ["go-language", "golang"]


@pytest.mark.parametrize("kind", ["topics", "authors"])
def test_renaming_to_a_name_in_use_is_409(app, editor_client, posts, kind):
    """Another topic or author's name, in any case, is refused with a pointer to merging."""
    posts.create(1, topics=("Databases", "Frontend"))
    _author(app, "Grace Example", posts=1)
    if kind == "topics":
        row, taken = topic_id(app, "databases"), "FRONTEND"
    else:
        row, taken = author_id(app, "ada-example"), "grace  example"
    response = rename(editor_client, kind, row, taken)
    assert response.status_code == 409
    assert "merge" in problem(response)
    assert page(response).select_one("#name")["value"] == taken


def _author(app: Flask, name: str, *, posts: int = 0) -> None:
    """Store an author, credited with `posts` published posts."""
    with app.app_context():
        author = store.author_named(name)
        for n in range(posts):
            store.new_post(
                title=f"By {name} {n}",
                body="Text.",
                author=author,
                topics=[store.topic_named("Databases")],
                published_at=utcnow() - timedelta(days=1),
            )
        db.session.commit()


@pytest.mark.parametrize("kind", ["topics", "authors"])
@pytest.mark.parametrize("name", ["", "   ", "\x00\x01", "x" * 200_000])
def test_empty_blank_or_huge_names_are_422(app, editor_client, posts, kind, name):
    """Nothing, spaces, control characters or 200,000 characters: 422, nothing renamed."""
    posts.create(1)
    row = topic_id(app, "databases") if kind == "topics" else author_id(app, "ada-example")
    response = rename(editor_client, kind, row, name)
    assert response.status_code == 422
    assert problem(response)
    with app.app_context():
        assert db.session.scalars(sa.select(Topic.name)).all() == ["Databases"]
        assert db.session.scalars(sa.select(Author.name)).all() == ["Ada Example"]


def test_a_topic_name_without_letters_is_422(app, editor_client, posts):
    """A topic needs a letter or digit to have an address."""
    posts.create(1)
    response = rename(editor_client, "topics", topic_id(app, "databases"), "!!!")
    assert response.status_code == 422
    assert "letter or a digit" in problem(response)


def test_two_editors_renaming_at_once_one_wins_the_other_gets_409(app, editor_client, posts):
    """Both loaded the page showing "Reliabilty": the second rename is refused, saying what
    the topic is called now, and the first one stands."""
    posts.create(1, topics=("Reliabilty",))
    row = topic_id(app, "reliabilty")
    first = rename(editor_client, "topics", row, "Reliability", shown="Reliabilty")
    second = rename(editor_client, "topics", row, "Resilience", shown="Reliabilty")
    assert (first.status_code, second.status_code) == (303, 409)
    assert "now called “Reliability”" in problem(second)
    with app.app_context():
        assert db.session.scalars(sa.select(Topic.name)).all() == ["Reliability"]


def test_another_topics_old_address_is_not_taken(app, editor_client, client, posts):
    """A name whose address still leads to another topic is refused (409)."""
    posts.create(1, topics=("Go",))
    posts.create(1, topics=("Rust",))
    assert rename(editor_client, "topics", topic_id(app, "go"), "Golang").status_code == 303
    response = rename(editor_client, "topics", topic_id(app, "rust"), "Go")
    assert response.status_code == 409
    assert "/topics/go" in problem(response)
    assert client.get("/topics/go").headers["Location"] == "/topics/golang"


def test_renaming_an_author_changes_every_byline(app, editor_client, client, posts):
    """The posts show the new name at once (the data version moved)."""
    (slug,) = posts.create(1)
    assert "Ada Example" in client.get(f"/posts/{slug}").get_data(as_text=True)
    response = rename(editor_client, "authors", author_id(app, "ada-example"), "Ada Lovelace")
    assert response.status_code == 303
    text = client.get(f"/posts/{slug}").get_data(as_text=True)
    assert "Ada Lovelace" in text and "Ada Example" not in text


# Describing ---------------------------------------------------------------------------------


def test_a_description_shows_on_the_topic_page(app, editor_client, client, posts):
    """Saved, it appears under the topic page's heading; a stale form or 501 characters is
    refused."""
    posts.create(1)
    row = topic_id(app, "databases")
    client.get("/topics/databases")  # kept in the page cache
    url = f"/editor/topics/{row}/describe"
    saved = act(editor_client, url, description="Storage, queries, indexes.", shown_description="")
    assert saved.status_code == 303
    shown = page(client.get("/topics/databases")).select_one("#topic-description")
    assert shown.get_text() == "Storage, queries, indexes."
    assert page(client.get("/")).select_one("#topic-description") is None
    stale = act(editor_client, url, description="Mine.", shown_description="")
    assert stale.status_code == 409
    long = act(
        editor_client, url, description="x" * 501, shown_description="Storage, queries, indexes."
    )
    assert long.status_code == 422
    assert "501 characters" in problem(long)
    listed = page(editor_client.get("/editor/topics")).select_one(
        "#topic-table tbody td:last-child"
    )
    assert listed.get_text() == "Storage, queries, indexes."


# Merging ------------------------------------------------------------------------------------


def test_merging_topics_moves_posts_without_duplicate_links(app, editor_client, client, posts):
    """A's posts move to B; a post under both keeps one link, in A's earlier place; A's
    addresses lead to B; A is gone; the counts are right."""
    posts.create(2, topics=("Reliabilty",))
    (both,) = posts.create(1, topics=("Reliabilty", "Databases", "Reliability"))
    posts.create(1, topics=("Reliability",))
    source, target = topic_id(app, "reliabilty"), topic_id(app, "reliability")
    response = act(
        editor_client,
        f"/editor/topics/{source}/merge",
        into=str(target),
        shown_name="Reliabilty",
        confirmed="yes",
    )
    assert response.status_code == 303
    assert response.headers["Location"] == f"/editor/topics/{target}"
    with app.app_context():
        assert db.session.get(Topic, source) is None
        links = db.session.scalar(
            sa.select(sa.func.count()).select_from(PostTopic).where(PostTopic.topic_id == target)
        )
        assert links == 4
        post = db.session.scalar(sa.select(Post).where(Post.slug == both))
        assert [topic.name for topic in post.topics] == ["Reliability", "Databases"]
        assert post.primary_topic.name == "Reliability"
        assert db.session.get(Topic, target).published_count == 4
    moved = client.get("/topics/reliabilty")
    assert (moved.status_code, moved.headers["Location"]) == (301, "/topics/reliability")
    assert "4" in page(client.get("/topics/reliability")).select_one("#filter-reliability").text


def test_a_merged_topics_old_addresses_follow_it(app, editor_client, client, posts):
    """An address that led to A before leads to B after A is merged into B."""
    posts.create(1, topics=("Golang",))
    posts.create(1, topics=("Go",))
    golang = topic_id(app, "golang")
    assert rename(editor_client, "topics", golang, "Go lang").status_code == 303
    go = str(topic_id(app, "go"))
    act(editor_client, f"/editor/topics/{golang}/merge", into=go, confirmed="yes")
    for old in ("golang", "go-lang"):
        assert client.get(f"/topics/{old}").headers["Location"] == "/topics/go"


@pytest.mark.parametrize(
    ("into", "status"),
    [("", 422), ("self", 422), ("999999", 404), (str(MAX_ROW_ID + 1), 404), ("1e3", 404)],
)
def test_bad_merge_targets_are_refused(app, editor_client, posts, into, status):
    """No target, the topic itself, or an id no topic has: nothing moves."""
    posts.create(1, topics=("Databases", "Frontend"))
    row = topic_id(app, "databases")
    target = str(row) if into == "self" else into
    response = act(
        editor_client, f"/editor/topics/{row}/merge", into=target, shown_name="Databases"
    )
    assert response.status_code == status
    assert problem(response)
    with app.app_context():
        assert db.session.scalar(sa.select(sa.func.count(Topic.id))) == 2


def test_merging_authors_credits_their_posts(app, editor_client, posts):
    """Ada Edtor's posts go to Ada Example, and Ada Edtor is removed."""
    posts.create(2)
    _author(app, "Ada Edtor", posts=1)
    source, target = author_id(app, "ada-edtor"), author_id(app, "ada-example")
    response = act(
        editor_client,
        f"/editor/authors/{source}/merge",
        into=str(target),
        shown_name="Ada Edtor",
        confirmed="yes",
    )
    assert response.status_code == 303
    with app.app_context():
        assert db.session.scalars(sa.select(Author.name)).all() == ["Ada Example"]
        assert set(db.session.scalars(sa.select(Post.author_id))) == {target}
    itself = act(editor_client, f"/editor/authors/{target}/merge", into=str(target))
    assert itself.status_code == 422


def _team(app: Flask, title: str, *names: str) -> int:
    """A published post credited to these authors in order; its id."""
    with app.app_context():
        authors = store.credited(names)
        post = store.new_post(
            title=title,
            body="Text.",
            author=authors[0],
            coauthors=authors[1:],
            topics=[store.topic_named("Databases")],
            published_at=utcnow() - timedelta(days=1),
        )
        db.session.commit()
        return post.id


def _bylines(app: Flask) -> dict[str, list[str]]:
    """Each post's authors, first first, by title; and every post's first author agrees."""
    with app.app_context():
        found = {}
        for post in db.session.scalars(sa.select(Post)):
            found[post.title] = [author.name for author in post.authors]
            assert post.author_id == post.author_links[0].author_id
        return found


def test_merging_an_author_credits_the_target_in_their_place_once(
    app, editor_client, client, posts
):
    """Merged away while a co-author: the target takes the source's place on each post, and
    a post that credited both keeps the target once, at the earlier of the two places."""
    _team(app, "Second", "Ada Example", "Ada Edtor")
    _team(app, "First of both", "Ada Edtor", "Bo Writer", "Ada Example")
    _team(app, "Target first", "Ada Example", "Bo Writer", "Ada Edtor")
    _team(app, "Alone", "Ada Edtor")
    before = version(app)
    source, target = author_id(app, "ada-edtor"), author_id(app, "ada-example")
    response = act(
        editor_client,
        f"/editor/authors/{source}/merge",
        into=str(target),
        shown_name="Ada Edtor",
        confirmed="yes",
    )
    assert response.status_code == 303
    assert version(app) > before  # cached bylines and author pages change
    assert _bylines(app) == {
        "Second": ["Ada Example"],
        "First of both": ["Ada Example", "Bo Writer"],
        "Target first": ["Ada Example", "Bo Writer"],
        "Alone": ["Ada Example"],
    }
    assert client.get("/authors/ada-edtor").status_code == 404
    ada = page(client.get("/authors/ada-example"))
    assert ada.select_one("#all-posts-label").get_text().endswith(" · 4")


def test_merging_a_co_author_only_moves_their_credits(app, editor_client, posts):
    """An author credited only after others is merged without touching the first authors."""
    _team(app, "Shared", "Bo Writer", "Cy Typo")
    _team(app, "Other", "Bo Writer", "Cy Third")
    source, target = author_id(app, "cy-typo"), author_id(app, "cy-third")
    url = f"/editor/authors/{source}/merge"
    act(editor_client, url, into=str(target), shown_name="Cy Typo", confirmed="yes")
    assert _bylines(app) == {
        "Shared": ["Bo Writer", "Cy Third"],
        "Other": ["Bo Writer", "Cy Third"],
    }
    rows = page(editor_client.get("/editor/authors")).select("#author-table tbody tr")
    counts = {
        " ".join(row.select_one("td, th").get_text().split()): row.select_one(
            ".post-count"
        ).get_text(strip=True)
        for row in rows
    }
    assert counts == {"Bo Writer": "2", "Cy Third": "2"}


def test_a_co_author_cannot_be_deleted(app, editor_client, posts):
    """An author credited only as a co-author (on a draft too) still counts as used: 409."""
    _team(app, "Shared", "Bo Writer", "Cy Third")
    with app.app_context():
        post = db.session.scalar(sa.select(Post))
        post.status, post.published_at = "draft", None
        db.session.commit()
    refused = act(editor_client, f"/editor/authors/{author_id(app, 'cy-third')}/delete")
    assert refused.status_code == 409
    assert "1 post is filed under it" in problem(refused)
    assert _bylines(app) == {"Shared": ["Bo Writer", "Cy Third"]}


# Deleting -----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["topics", "authors"])
def test_only_unused_rows_can_be_deleted(app, editor_client, posts, kind):
    """A topic or author on a post (a draft too) is 409 with the count; an unused one goes."""
    posts.create(1, published_at=None)
    if kind == "topics":
        posts.topics("Unused")
        used, unused = topic_id(app, "databases"), topic_id(app, "unused")
    else:
        _author(app, "Nobody Yet")
        used, unused = author_id(app, "ada-example"), author_id(app, "nobody-yet")
    refused = act(editor_client, f"/editor/{kind}/{used}/delete")
    assert refused.status_code == 409
    assert "1 post is filed under it" in problem(refused)
    deleted = act(editor_client, f"/editor/{kind}/{unused}/delete")
    assert deleted.status_code == 303
    assert deleted.headers["Location"] == f"/editor/{kind}"
    model = Topic if kind == "topics" else Author
    with app.app_context():
        assert db.session.get(model, used) is not None
        assert db.session.get(model, unused) is None


# Author profiles ----------------------------------------------------------------------------


def profile(client: FlaskClient, row: int, **fields: object):
    """Post the profile form as the author's page shows it, with `fields` changed."""
    soup = page(client.get(f"/editor/authors/{row}"))
    form = {
        "csrf_token": soup.select_one('meta[name="csrf-token"]')["content"],
        "shown_bio": soup.select_one('input[name="shown_bio"]')["value"],
        "shown_url": soup.select_one('input[name="shown_url"]')["value"],
        "bio": soup.select_one("#bio").get_text().lstrip("\n"),
        "url": soup.select_one("#url").get("value", ""),
    }
    return client.post(
        f"/editor/authors/{row}/profile",
        data=form | fields,
        content_type="multipart/form-data",
    )


def test_a_profile_takes_a_bio_a_link_and_an_avatar(app, editor_client, posts):
    """Saved, the bio, link and avatar are stored and shown again on the author's page;
    "remove" clears the avatar, and a stale page is refused (409)."""
    posts.create(1)
    row = author_id(app, "ada-example")
    before = version(app)
    saved = profile(
        editor_client,
        row,
        bio="Writes about\r\nstorage.",
        url="https://ada.example/about",
        avatar=(io.BytesIO(picture_bytes()), "me.png"),
    )
    assert saved.status_code == 303, problem(saved)
    assert version(app) > before
    with app.app_context():
        author = db.session.get_one(Author, row)
        assert (author.bio, author.url) == ("Writes about\nstorage.", "https://ada.example/about")
        assert author.avatar is not None and author.avatar.width == 64
    shown = page(editor_client.get(f"/editor/authors/{row}"))
    assert shown.select_one(".image-current img")["alt"] == "Avatar of Ada Example"
    assert profile(editor_client, row, remove_avatar="y").status_code == 303
    with app.app_context():
        assert db.session.get_one(Author, row).avatar_image_id is None
    stale = profile(editor_client, row, shown_bio="Something older.", bio="Mine.")
    assert stale.status_code == 409


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        "data:text/html,hi",
        "mailto:ada@example.com",
        "/relative/path",
        "https://",
        "https://exa mple.com",
        "https://example.com/" + "x" * 500,
    ],
)
def test_a_link_that_is_not_a_web_address_is_422(app, editor_client, posts, url):
    """Only http and https addresses with a host, within 500 characters; nothing is saved."""
    posts.create(1)
    row = author_id(app, "ada-example")
    response = profile(editor_client, row, url=url, bio="Kept?")
    assert response.status_code == 422
    assert "link" in problem(response).lower()
    assert page(response).select_one("#url")["value"] == url
    with app.app_context():
        assert db.session.get_one(Author, row).bio == ""


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({"bio": "x" * 601}, 422),
        ({"bio": "x" * 200_000}, 422),
        ({"avatar": (io.BytesIO(b"not a picture"), "me.png")}, 422),
    ],
    ids=["long-bio", "huge-bio", "not-an-image"],
)
def test_a_long_bio_or_a_bad_avatar_is_refused(app, editor_client, posts, fields, status):
    """A bio over 600 characters or a file that is no image: refused with a message."""
    posts.create(1)
    row = author_id(app, "ada-example")
    response = profile(editor_client, row, **fields)
    assert response.status_code == status
    assert problem(response)
    with app.app_context():
        author = db.session.get_one(Author, row)
        assert (author.bio, author.avatar_image_id) == ("", None)


@pytest.mark.parametrize("kind", ["topics", "authors"])
def test_a_merge_asks_first_saying_how_many_posts_move(app, editor_client, posts, kind):
    """The merge form opens a page that asks ("Move 3 posts from A to B?"), which works
    without scripts; a merge posted without its confirmation, or after the posts changed
    meanwhile, changes nothing; confirmed, it merges and says how many posts moved."""
    if kind == "topics":
        posts.create(3, topics=("Reliabilty",))
        posts.create(1, topics=("Reliability",))
        source, target = topic_id(app, "reliabilty"), topic_id(app, "reliability")
        question = "Move 3 posts from “Reliabilty” to “Reliability”?"
    else:
        posts.create(1, author="Ada Example")
        posts.create(3, author="Ada Edtor")
        source, target = author_id(app, "ada-edtor"), author_id(app, "ada-example")
        question = "Credit 3 posts by “Ada Edtor” to “Ada Example”?"
    item = page(editor_client.get(f"/editor/{kind}/{source}"))
    form = item.select_one("select#into").find_parent("form")
    assert form["method"] == "get" and form["action"] == f"/editor/{kind}/{source}/merge"
    asked = editor_client.get(form["action"], query_string={"into": str(target)})
    assert asked.status_code == 200
    assert "no-store" in asked.headers["Cache-Control"]
    soup = page(asked)
    assert soup.select_one("h1").get_text() == question
    confirm = soup.select_one("form.confirm-actions")
    fields = {field["name"]: field.get("value", "") for field in confirm.select("input")}
    assert fields["confirmed"] == "yes" and fields["shown_posts"] == "3"
    assert fields["into"] == str(target)

    unconfirmed = act(editor_client, form["action"], into=str(target))
    assert unconfirmed.status_code == 422
    assert page(unconfirmed).select_one("h1").get_text() == question
    # A post is added meanwhile: the page asked about 3, so nothing is merged.
    posts.create(1, topics=("Reliabilty",), author="Ada Edtor")
    stale = act(editor_client, form["action"], **fields)
    assert stale.status_code == 409
    assert "now on 4 posts, not 3" in problem(stale)
    model = Topic if kind == "topics" else Author
    with app.app_context():
        assert db.session.get(model, source) is not None
    fields["shown_posts"] = "4"
    done = act(editor_client, form["action"], **fields)
    assert done.status_code == 303
    notice = page(editor_client.get(done.headers["Location"])).select_one(".notice")
    assert notice.get_text().endswith(": 4 posts moved.")
    with app.app_context():
        assert db.session.get(model, source) is None
    merge_url = f"/editor/{kind}/{target}/merge"
    for bad, status in (("", 422), (str(target), 422), ("x", 404), ("999999", 404)):
        refused = editor_client.get(merge_url, query_string={"into": bad})
        assert refused.status_code == status and problem(refused), bad
    assert editor_client.get(form["action"], query_string={"into": target}).status_code == 404
