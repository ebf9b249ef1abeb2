"""The factory, its settings, the schema and the illustrations route."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from blog import create_app
from blog.extensions import db
from blog.reading import search


def test_refuses_to_start_without_secret_key_outside_debug(monkeypatch):
    """Production needs a real SECRET_KEY; only debug mode falls back to a development key."""
    with pytest.raises(RuntimeError, match="SECRET_KEY"):
        create_app({"SECRET_KEY": None, "DEBUG": False})
    monkeypatch.setenv("FLASK_DEBUG", "1")
    app = create_app({"SECRET_KEY": None})
    assert app.debug and app.config["SECRET_KEY"]


def test_database_url_defaults_to_sqlite_under_instance(monkeypatch):
    """DATABASE_URL picks the store; unset, it is a SQLite file under instance/."""
    from blog import config

    monkeypatch.delenv("DATABASE_URL", raising=False)
    assert config.database_url().endswith("/instance/fieldnotes.sqlite3")
    monkeypatch.setenv("DATABASE_URL", "postgres://u@h/d")
    assert config.database_url() == "postgresql+psycopg://u@h/d"


def test_migrations_build_exactly_the_models(app):
    """The schema `db upgrade` builds matches the models: nothing missing, nothing extra."""
    with app.app_context(), db.engine.connect() as connection:
        context = MigrationContext.configure(
            connection, opts={"include_object": search.include_object}
        )
        diff = compare_metadata(context, db.metadata)
    assert diff == []


def test_illustration_route_serves_svg(client):
    """Generated drawings are served as SVG and cached; odd slugs are 404."""
    response = client.get("/illustrations/some-post.svg")
    assert response.status_code == 200
    assert response.mimetype == "image/svg+xml"
    assert response.get_data(as_text=True).startswith("<svg")
    assert "max-age" in response.headers["Cache-Control"]
    assert client.get("/illustrations/..%2fetc.svg").status_code == 404
    assert client.get("/illustrations/UPPER.svg").status_code == 404


def test_unexpected_errors_show_a_plain_500_page(database_url):
    """A bug shows the site's 500 page, never a traceback."""
    app = create_app({"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url})

    @app.get("/__boom")
    def boom():
        raise ZeroDivisionError("secret detail")

    response = app.test_client().get("/__boom")
    assert response.status_code == 500
    body = response.get_data(as_text=True)
    assert "secret detail" not in body and "Traceback" not in body
    assert "Something went wrong" in body


def test_trusted_proxies_decide_the_client_address(database_url):
    """Forwarded headers count only when a proxy is configured in front of the app."""
    seen = {}

    def build(proxies: int):
        app = create_app(
            {"SECRET_KEY": "x", "SQLALCHEMY_DATABASE_URI": database_url, "TRUSTED_PROXIES": proxies}
        )

        @app.get("/__who")
        def who():
            from flask import request

            seen[proxies] = request.remote_addr
            return ""

        return app

    for proxies in (0, 1):
        build(proxies).test_client().get(
            "/__who",
            headers={"X-Forwarded-For": "203.0.113.9"},
            environ_base={"REMOTE_ADDR": "10.0.0.1"},
        )
    assert seen == {0: "10.0.0.1", 1: "203.0.113.9"}
