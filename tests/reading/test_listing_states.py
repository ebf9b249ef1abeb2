"""What each listing state shows above its list: a topic's own heading and featured post,
sections numbered in order, and deep pages that go straight to the list."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from tests.reading.test_views import soup


def heading(page: BeautifulSoup) -> str:
    """The page's <h1>, whitespace normalised."""
    return " ".join(page.select_one("h1").get_text().split())


def section_labels(page: BeautifulSoup) -> list[str]:
    """The numbered section labels shown, in page order."""
    return [
        " ".join(label.get_text().split())
        for label in page.select(".section-label")
        if not label.find_parent(attrs={"hidden": True})
    ]


@pytest.fixture
def two_topics(posts):
    """Databases (3 posts, one featured) and Frontend (15, the newest featured site-wide)."""
    posts.topics("Databases", "Frontend")
    posts.create(1, topics=("Frontend",), title="Site featured", featured=True)  # the newest
    posts.create(3, topics=("Databases",))
    posts.create(1, topics=("Databases",), title="Db featured", featured=True)
    posts.create(15, topics=("Frontend",))
    return posts


def test_a_topic_page_opens_with_its_name_and_description(app, client, two_topics):
    import sqlalchemy as sa

    from blog.extensions import db
    from blog.models import Topic

    described = "Storage engines, indexes and the queries that use them."
    with app.app_context():
        db.session.execute(
            sa.update(Topic).where(Topic.slug == "databases").values(description=described)
        )
        db.session.commit()
    page = soup(client.get("/topics/databases"))
    assert heading(page) == "Databases"
    assert page.select_one("#topic-description").get_text() == described
    assert heading(soup(client.get("/"))) == app.config["SITE_HERO"]


def test_a_topic_page_features_only_its_own_post_and_counts_its_posts(client, two_topics):
    home = soup(client.get("/"))
    assert home.select_one(".featured .card-title").get_text(strip=True) == "Site featured"
    page = soup(client.get("/topics/databases"))
    assert page.select_one(".featured .card-title").get_text(strip=True) == "Db featured"
    assert section_labels(page) == ["01 Featured", "02 Posts about Databases · 4"]
    assert " ".join(page.select_one("#counter").get_text().split()) == "Showing 4 of 4 posts"
    # Every card on a topic's page wears that topic's label.
    labels = {p.get_text(strip=True) for p in page.select(".card-topic")}
    assert labels == {"Databases"}


def test_a_topic_without_a_featured_post_features_none(client, posts):
    posts.topics("Databases", "Frontend")
    posts.create(2, topics=("Databases",))
    posts.create(1, topics=("Frontend",), title="Elsewhere", featured=True)
    page = soup(client.get("/topics/databases"))
    assert page.select_one("#featured").has_attr("hidden")
    assert "Elsewhere" not in page.get_text()
    assert section_labels(page) == ["01 Posts about Databases · 2"]


def test_home_numbers_featured_picks_and_list_in_order(client, posts):
    posts.create(14, editors_pick=True)
    posts.create(1, featured=True)
    labels = section_labels(soup(client.get("/")))
    assert [label[:2] for label in labels] == ["01", "02", "03"]
    assert labels[0] == "01 Featured" and labels[2] == "03 All posts · 15"


@pytest.mark.parametrize("path", ["/?page=2", "/topics/frontend?page=2"])
def test_deep_pages_go_straight_to_the_list(client, two_topics, path):
    two_topics.create(4, topics=("Frontend",), editors_pick=True)
    page = soup(client.get(path))
    assert page.select_one("#hero.hero-compact h1")
    assert page.select_one("#featured").has_attr("hidden")
    assert page.select_one("#picks").has_attr("hidden")
    assert page.select(".topic-filter a") and len(page.select("#post-list .card")) >= 1
    assert section_labels(page)[0].startswith("01 ")


def test_a_topic_swap_brings_the_topic_heading_and_featured_post_along(client, two_topics):
    swap = soup(
        client.get("/topics/databases", headers={"HX-Request": "true", "HX-Target": "all-posts"})
    )
    hero = swap.select_one("#hero[data-hx-swap-oob]")
    assert hero and heading(swap) == "Databases"
    featured = swap.select_one("#featured[data-hx-swap-oob]")
    assert featured.select_one(".card-title").get_text(strip=True) == "Db featured"
    back = soup(client.get("/", headers={"HX-Request": "true", "HX-Target": "all-posts"}))
    assert back.select_one("#featured[data-hx-swap-oob] .card-title").get_text(strip=True) == (
        "Site featured"
    )
    more = client.get(
        "/topics/frontend?page=2", headers={"HX-Request": "true", "HX-Target": "post-list"}
    )
    assert b'data-hx-swap-oob="true" id="hero"' not in more.data and b'id="hero"' not in more.data
