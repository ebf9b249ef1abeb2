"""The site answers only for its own host name (SITE_URL's): any other Host is a 400 page,
before a cached page or a redirect could be built on it."""

from __future__ import annotations

import pytest

from blog import create_app
from blog.web.hosts import trusted_hosts

SITE = "https://blog.example.org/notes/"


@pytest.fixture
def site_app(app, database_url):
    """The app as production runs it (not TESTING), on the test database, at SITE."""
    return create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url, "SITE_URL": SITE}
    )


def test_trusted_hosts_come_from_site_url(site_app):
    """Unset, SITE_HOSTS is SITE_URL's host name; debug, or a SITE_URL on the loopback,
    adds the loopback names; given, it is used as it is; apps built for tests that name none
    accept any host."""
    assert site_app.config["SITE_HOSTS"] == ["blog.example.org"]
    config = {"SITE_URL": "http://127.0.0.1:5000"}
    assert trusted_hosts(config, debug=False) == ["127.0.0.1", "localhost"]
    real = {"SITE_URL": "https://blog.example.org"}
    assert trusted_hosts(real, debug=True) == ["blog.example.org", "localhost", "127.0.0.1"]
    assert trusted_hosts({**config, "SITE_HOSTS": ["a.example", "b.example"]}, False) == [
        "a.example",
        "b.example",
    ]
    assert trusted_hosts({**config, "TESTING": True}, debug=False) is None


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/editor",
        "//posts//x",
        "/static//css/site.css",
        "/login",
        "/editor/accounts",
        "/drafts/" + "a" * 43,
        "/account/invite/" + "a" * 43,
        "/account/reset/" + "a" * 43,
    ],
)
def test_another_host_gets_a_400_page_and_no_address_built_on_it(site_app, path):
    """Redirects (trailing slash, doubled slashes) and pages never name the other host."""
    client = site_app.test_client()
    answer = client.get(path, headers={"Host": "evil.example"})
    assert answer.status_code == 400
    assert "evil.example" not in answer.headers.get("Location", "")
    assert "evil.example" not in answer.get_data(as_text=True)
    assert answer.mimetype == "text/html" and "does not answer for that host" in answer.text


def test_the_sites_own_host_is_served_with_or_without_a_port(site_app, posts):
    """The right name is answered, and a redirect from it stays on it."""
    posts.create(1)
    client = site_app.test_client()
    for host in ("blog.example.org", "blog.example.org:443", "Blog.Example.ORG:8443"):
        assert client.get("/", headers={"Host": host}).status_code == 200
    moved = client.get("/editor", headers={"Host": "blog.example.org"})
    assert moved.status_code == 308 and "blog.example.org" in moved.headers["Location"]


def test_a_kept_page_is_not_handed_to_another_host(site_app, posts):
    """The page cache runs after the host check: a page kept for the site's own name is
    never the answer to a request naming another."""
    posts.create(1)
    client = site_app.test_client()
    assert client.get("/", headers={"Host": "blog.example.org"}).status_code == 200
    assert client.get("/", headers={"Host": "blog.example.org"}).status_code == 200  # kept
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400


def test_debug_mode_also_answers_the_loopback_names(app, database_url):
    """`make run` serves http://127.0.0.1:5000 and a newcomer may type localhost."""
    debug_app = create_app(
        {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url, "DEBUG": True,
         "SITE_URL": SITE}
    )  # fmt: skip
    client = debug_app.test_client()
    for host in ("localhost:5000", "127.0.0.1:5000"):
        assert client.get("/robots.txt", headers={"Host": host}).status_code == 200
    assert client.get("/robots.txt", headers={"Host": "evil.example"}).status_code == 400
