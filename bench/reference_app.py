"""The listing benchmark's two references, as app factories gunicorn serves like the blog.

- `constant()`: a tiny Flask app that answers `/` with the blog's home page exactly as the
  blog sent it on the same data set: the plain bytes in BENCH_PAGE_FILE, or, when the request
  accepts BENCH_PAGE_ENCODING, the compressed body in BENCH_PAGE_COMPRESSED_FILE (what the
  blog sent for `Accept-Encoding: gzip, br`). It measures what sending those bytes through
  Flask and gunicorn costs. `/compressed-per-request` answers with the plain bytes compressed
  on every request by Flask-Compress with the blog's settings (BENCH_COMPRESS, JSON): the cost
  of compressing on the fly.
- `inmemory()`: the blog itself (`create_app()` on DATABASE_URL), whose home view is replaced
  by one that renders the same template from the context the real view passed on one request
  at startup, every database row copied into a plain object. It measures the templates alone:
  same Jinja environment, filters, hooks and compression, no query.

    gunicorn -w 2 'bench.reference_app:constant()'
    gunicorn -w 2 'bench.reference_app:inmemory()'
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import Flask, Response, render_template, request, template_rendered
from flask_compress import Compress
from sqlalchemy.orm.state import InstanceState

# Where the constant app compresses the page on every request, as Flask-Compress would.
PER_REQUEST_PATH = "/compressed-per-request"
# Values copied as they are: immutable, and never backed by the database.
_ATOMS = (str, bytes, int, float, bool, type(None))


def compression_settings(app: Flask) -> dict[str, Any]:
    """The app's Flask-Compress settings, as JSON-safe values."""
    settings = {}
    for key, value in app.config.items():
        if key.startswith("COMPRESS_") and key != "COMPRESS_CACHE_BACKEND":
            try:
                json.dumps(value)
            except TypeError:
                continue
            settings[key] = value
    return settings


def uses_flask_compress(app: Flask) -> bool:
    """True when one of the app's after-request hooks belongs to Flask-Compress."""
    hooks = app.after_request_funcs.get(None, [])
    return any(isinstance(getattr(hook, "__self__", None), Compress) for hook in hooks)


def constant() -> Flask:
    """A Flask app answering with one captured page, byte for byte (see the module docstring)."""
    plain = Path(os.environ["BENCH_PAGE_FILE"]).read_bytes()
    encoding = os.environ.get("BENCH_PAGE_ENCODING") or None
    stored_file = os.environ.get("BENCH_PAGE_COMPRESSED_FILE")
    stored = Path(stored_file).read_bytes() if encoding and stored_file else None
    app = Flask(__name__)

    @app.get("/")
    def page() -> Response:
        """The page as the blog sent it: its compressed body when the client takes that."""
        if stored is not None and request.accept_encodings.quality(encoding) > 0:
            response = Response(stored, mimetype="text/html")
            response.headers["Content-Encoding"] = encoding
        else:
            response = Response(plain, mimetype="text/html")
        response.vary.add("Accept-Encoding")
        return response

    def per_request() -> Response:
        """The plain page, compressed on every request like any Flask-Compress response."""
        return Response(plain, mimetype="text/html")

    settings = json.loads(os.environ.get("BENCH_COMPRESS") or "null")
    if settings:
        app.config.update(settings | {"COMPRESS_REGISTER": False})
        per_request = Compress(app).compressed()(per_request)
    app.add_url_rule(PER_REQUEST_PATH, "per_request", per_request)
    return app


# --- The in-memory render ---------------------------------------------------------------------

_plain_classes: dict[type, type] = {}


def _plain_class(model: type) -> type:
    """A plain class with the model's own properties and methods, but no database behind it."""
    if model not in _plain_classes:
        namespace: dict[str, Any] = {}
        for klass in reversed(model.__mro__):
            if not klass.__module__.startswith("blog"):
                continue
            for name, attribute in vars(klass).items():
                if name.startswith("__") or not (
                    isinstance(attribute, property | functools.cached_property)
                    or callable(attribute)
                ):
                    continue
                namespace[name] = attribute
        namespace["__repr__"] = lambda self: f"<Plain{model.__name__}>"
        _plain_classes[model] = type(f"Plain{model.__name__}", (), namespace)
    return _plain_classes[model]


def plain_copy(value: Any, memo: dict[int, Any] | None = None) -> Any:
    """`value` with every loaded ORM object in it replaced by a plain copy of what was loaded."""
    memo = {} if memo is None else memo
    if isinstance(value, _ATOMS) or id(value) in memo:
        return memo.get(id(value), value)
    state = sa.inspect(value, raiseerr=False)
    if isinstance(state, InstanceState):
        copy = _plain_class(type(value))()
        memo[id(value)] = copy
        for name, loaded in state.dict.items():
            if not name.startswith("_sa_"):
                copy.__dict__[name] = plain_copy(loaded, memo)
        return copy
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        copy = type(value)(
            **{f.name: plain_copy(getattr(value, f.name), memo) for f in fields if f.init}
        )
        memo[id(value)] = copy
        return copy
    if isinstance(value, list):
        return [plain_copy(item, memo) for item in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(plain_copy(item, memo) for item in value)
    if isinstance(value, dict):
        return {key: plain_copy(item, memo) for key, item in value.items()}
    return value


def capture(app: Flask, path: str) -> tuple[str, dict[str, Any], bytes]:
    """Request `path` once; return the template it rendered, the view's context and the body."""
    rendered: list[tuple[str, dict[str, Any]]] = []

    def record(_sender: Flask, template: Any, context: Mapping[str, Any], **_: Any) -> None:
        rendered.append((template.name, dict(context)))

    with template_rendered.connected_to(record, app):
        response = app.test_client().get(path)
    if response.status_code != 200 or len(rendered) != 1:
        raise RuntimeError(
            f"{path} answered {response.status_code} after rendering {len(rendered)} templates; "
            "the in-memory reference needs one full render (is a page cache still on?)"
        )
    name, context = rendered[0]
    with app.test_request_context(path):
        added: dict[str, Any] = {}
        app.update_template_context(added)
    view_context = {key: value for key, value in context.items() if key not in added}
    return name, view_context, response.get_data()


def inmemory(settings: Mapping[str, Any] | None = None) -> Flask:
    """The blog, its home view rendering a context captured at startup (no database).

    `settings` override the environment's, as in `create_app`.
    """
    from blog import create_app
    from blog.extensions import db

    path = os.environ.get("BENCH_PATH", "/")
    app = create_app(settings)
    name, context, _ = capture(app, path)
    context = plain_copy(context)
    with app.app_context():
        db.session.remove()
        db.engine.dispose()
    endpoint, _ = app.url_map.bind("127.0.0.1").match(path)

    def view(**_: Any) -> str:
        """The captured page, rendered again from memory."""
        return render_template(name, **context)

    app.view_functions[endpoint] = view
    return app
