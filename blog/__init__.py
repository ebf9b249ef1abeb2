"""Fieldnotes: a self-hosted engineering blog. This module holds the app factory only."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import click
from flask import Flask
from flask.cli import FlaskGroup, run_command
from werkzeug.middleware.proxy_fix import ProxyFix

from blog.config import DEV_SECRET_KEY, INSTANCE_DIR, ROOT, Config


def _built_for_a_command() -> bool:
    """Whether the `flask` command line is building the app for a command other than `run`.

    Those commands (`db`, `demo`, `posts`, `editors`...) sign nothing, so they run without
    SECRET_KEY; a server, `flask run` included, never does.
    """
    ctx = click.get_current_context(silent=True)
    return (
        ctx is not None
        and isinstance(ctx.find_root().command, FlaskGroup)
        and ctx.command is not run_command
    )


def create_app(test_config: Mapping[str, Any] | None = None) -> Flask:
    """Build the app from the environment's settings, or from `test_config` in tests."""
    app = Flask(
        __name__,
        instance_path=str(INSTANCE_DIR),
        template_folder=str(ROOT / "templates"),
        static_folder=str(ROOT / "static"),
    )
    app.config.from_object(Config)
    if test_config is not None:
        app.config.update(test_config)
    if not app.config["SECRET_KEY"]:
        if app.debug:
            app.config["SECRET_KEY"] = DEV_SECRET_KEY
        elif not _built_for_a_command():
            raise RuntimeError("SECRET_KEY is not set: refusing to start outside debug mode.")
    INSTANCE_DIR.mkdir(exist_ok=True)

    from blog import cli, database, media, roles
    from blog.authoring import account_access, auth, body_images, editor
    from blog.extensions import db, htmx, migrate
    from blog.reading import authors, drafts, edit_links, feeds, search, seo, typed_preview, views
    from blog.web import (
        errors,
        headers,
        hosts,
        limits,
        pagecache,
        security,
        static,
        templating,
        versions,
    )
    from blog.web.converters import RowIdConverter

    # Before any route is added: every id in a URL goes through the one converter.
    app.url_map.converters["id"] = RowIdConverter
    database.settle_engine_options(app.config)
    db.init_app(app)
    database.init_app(app)
    # The search index is made by its migration, not by models: keep it out of autogenerate.
    migrate.init_app(
        app, db, directory=str(ROOT / "migrations"), include_object=search.include_object
    )
    htmx.init_app(app)
    templating.init_app(app)
    security.init_app(app)
    errors.init_app(app)
    roles.init_app(app)
    limits.init_app(app)
    cli.init_app(app)
    versions.init_app(app)
    headers.init_app(app)
    static.init_app(app)
    seo.init_app(app)
    authors.init_app(app)
    app.register_blueprint(views.bp)
    media.init_app(app)
    app.register_blueprint(feeds.bp)
    app.register_blueprint(seo.bp)
    app.register_blueprint(search.bp)
    app.register_blueprint(drafts.bp)
    app.register_blueprint(drafts.shared)
    app.register_blueprint(typed_preview.bp)
    app.register_blueprint(edit_links.bp)
    auth.init_app(app)
    account_access.init_app(app)
    editor.init_app(app)
    body_images.init_app(app)
    # The WSGI layers around Flask, innermost first: responses that set a cookie are marked
    # no-store once every cookie is known; cached pages are answered before Flask runs; the
    # proxy fix tells both the client's real scheme and address; outermost, a request for a
    # host the site does not have is refused.
    wsgi: Any = headers.NoStoreWithCookies(app.wsgi_app)
    wsgi = pagecache.init_app(app, wsgi, views.CACHED_ROUTES)
    if app.config["TRUSTED_PROXIES"]:
        hops = app.config["TRUSTED_PROXIES"]
        wsgi = ProxyFix(wsgi, x_for=hops, x_proto=hops)
    app.wsgi_app = hosts.init_app(app, wsgi)  # type: ignore[method-assign]
    return app
