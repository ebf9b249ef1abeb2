"""HTTP caching: the data version, validators, 304s, Cache-Control rules and static URLs.

Every write to reader-visible rows bumps one counter (`site_state.version`) in the writing
transaction, so all server processes agree on it. The same row keeps the live post count and
the next scheduled publish time, refreshed once per writing transaction; the first request
after a scheduled post's time moves the version on, so a page that shows it is never stale.
"""

from __future__ import annotations

import functools
import hashlib
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import sqlalchemy as sa
import sqlalchemy.orm as so
from flask import Flask, current_app, has_request_context, request
from flask.wrappers import Response
from flask_compress import Compress
from flask_sqlalchemy.session import Session as AppSession
from werkzeug.http import http_date, is_resource_modified
from werkzeug.security import safe_join

from blog import hotreads, sitestate
from blog.database import WRITE_OPTION
from blog.extensions import db
from blog.models import SiteState, utcnow
from blog.reading import listing
from blog.sitestate import Snapshot, StateRead

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIApplication, WSGIEnvironment

# Tables whose rows readers see (directly or through a page, feed or sitemap): a write to
# any of them changes the data version. Tables added later join with `watch()`.
WATCHED_TABLES = {"posts", "topics", "authors", "post_topics", "images", "slug_redirects"}

# Blueprints that serve authoring pages: never stored by any cache.
AUTHORING_BLUEPRINTS = frozenset({"auth", "editor"})

# Cookies that mean the request may come from a signed-in editor (the session cookie's name
# is read from the app's settings).
REMEMBER_COOKIE_DEFAULT = "remember_token"

STATIC_MAX_AGE = 31_536_000  # a year: the URL changes whenever the file does


def watch(*table_names: str) -> None:
    """Make writes to these tables change the data version too."""
    WATCHED_TABLES.update(table_names)


# --- The data version -------------------------------------------------------------------


def _bump_statement(dialect: str) -> sa.Executable:
    """One statement that adds 1 to the version, creating the row when it is missing."""
    table = SiteState.__table__
    now = utcnow()
    if dialect in ("postgresql", "sqlite"):
        if dialect == "postgresql":
            from sqlalchemy.dialects.postgresql import insert
        else:
            from sqlalchemy.dialects.sqlite import insert
        stmt = insert(table).values(id=1, version=1, changed_at=now)
        return stmt.on_conflict_do_update(
            index_elements=[table.c.id],
            set_={"version": table.c.version + 1, "changed_at": stmt.excluded.changed_at},
        )
    return (
        sa.update(table).where(table.c.id == 1).values(version=table.c.version + 1, changed_at=now)
    )


def bump(session: so.Session) -> None:
    """Add 1 to the data version inside the session's current transaction."""
    connection = session.connection()
    result = connection.execute(_bump_statement(connection.dialect.name))
    if connection.dialect.name not in ("postgresql", "sqlite") and result.rowcount == 0:
        connection.execute(
            sa.insert(SiteState.__table__).values(id=1, version=1, changed_at=utcnow())
        )


def _table_name(instance: object) -> str | None:
    """The table a mapped instance is stored in."""
    table = getattr(type(instance), "__table__", None)
    return getattr(table, "name", None)


def _touches_watched(session: so.Session) -> bool:
    """True when the pending flush adds, changes or deletes a watched row."""
    for instance in (*session.new, *session.deleted):
        if _table_name(instance) in WATCHED_TABLES:
            return True
    return any(
        _table_name(instance) in WATCHED_TABLES and session.is_modified(instance)
        for instance in session.dirty
    )


CHANGED = "fieldnotes_changed"  # session.info flag: this transaction wrote watched rows


def _refresh(connection: sa.Connection) -> None:
    """Bring the kept counts, featured post, picks and page anchors up to date."""
    config = current_app.config
    listing.refresh(connection, utcnow(), config["POSTS_PER_PAGE"], config["PICKS_COUNT"])


def _before_flush(session: so.Session, _context: object, _instances: object) -> None:
    """Bump the version before the flush writes, so the row lock is always taken first."""
    if _touches_watched(session):
        bump(session)
        session.info[CHANGED] = True


def _on_execute(state: so.ORMExecuteState) -> None:
    """Bump the version for bulk INSERT, UPDATE or DELETE statements on watched tables."""
    if not (state.is_insert or state.is_update or state.is_delete):
        return
    table = getattr(state.statement, "table", None)
    if getattr(table, "name", None) in WATCHED_TABLES:
        bump(state.session)
        state.session.info[CHANGED] = True


def _before_commit(session: so.Session) -> None:
    """Once per writing transaction, bring the live count and next publish time up to date."""
    session.flush()  # commit flushes after this hook runs; the flush may be what changes
    if session.info.pop(CHANGED, False):
        _refresh(session.connection())


def _forget_changes(session: so.Session, *_args: object) -> None:
    """A rolled-back transaction wrote nothing."""
    session.info.pop(CHANGED, None)


def _listen_once(target: Any, name: str, fn: Any) -> None:
    """Attach a session event listener once, however many apps the process builds."""
    if not sa.event.contains(target, name, fn):
        sa.event.listen(target, name, fn)


def data_version() -> int:
    """The current data version (0 before the first write): one primary-key read."""
    query = sa.select(SiteState.version).where(SiteState.id == 1)
    return db.session.scalar(query) or 0


def _read_state() -> StateRead:
    """The state row, and the next scheduled publish time it records."""
    given = request.environ.pop(sitestate.ENVIRON_KEY, None) if has_request_context() else None
    if given is not None:
        return given
    rows = hotreads.fetch(sitestate.READ)
    return sitestate.from_row(rows[0] if rows else None)


def _publish_due_posts() -> None:
    """A scheduled post's time has come: move the version on, once, whichever process notices."""
    now = utcnow()
    table = SiteState.__table__
    with db.engine.connect() as connection:
        connection = connection.execution_options(**{WRITE_OPTION: True})
        with connection.begin():
            moved = connection.execute(
                sa.update(table)
                .where(table.c.id == 1, table.c.next_publish_at <= now)
                .values(version=table.c.version + 1, changed_at=now)
            )
            if moved.rowcount:
                _refresh(connection)
    db.session.rollback()  # end any read transaction begun before, so the next read sees it


class _StateBearing(Protocol):
    """A read that includes the state row's next scheduled publish time."""

    @property
    def next_publish_at(self) -> datetime | None: ...


Read = TypeVar("Read", bound=_StateBearing)


def current(read: Callable[[], Read]) -> Read:
    """`read()`, which reads the state row (maybe with more); when it shows a scheduled post
    has come due, move the version on first, once, whichever process notices, and read again."""
    found = read()
    if found.next_publish_at is not None and found.next_publish_at <= utcnow():
        _publish_due_posts()
        found = read()
    return found


def snapshot() -> Snapshot:
    """Read the state row (one primary-key read); publish due scheduled posts first."""
    return current(_read_state).state


# --- Validators and conditional responses ------------------------------------------------


@dataclass(frozen=True)
class Validator:
    """The ETag and Last-Modified of one representation, plus the snapshot behind them."""

    etag: str
    last_modified: datetime | None
    state: Snapshot

    @property
    def header(self) -> str:
        """The ETag as sent: weak, since compressed and plain bodies are equivalent."""
        return f'W/"{self.etag}"'


_build_lock = threading.Lock()
_build_tokens: dict[str, str] = {}


def _files_digest(roots: Iterable[Path], *, contents: bool) -> str:
    """A digest of every file under the folders: of their bytes, or of their size and mtime."""
    digest = hashlib.sha256()
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(root)).encode())
            if contents:
                digest.update(path.read_bytes())
            else:
                info = path.stat()
                digest.update(f"{info.st_size}:{info.st_mtime_ns}".encode())
    return digest.hexdigest()


def build_token(app: Flask) -> str:
    """A digest of the code, templates and static files: a deploy changes every ETag.

    Read once per process from the files' bytes, so every worker agrees; in debug mode,
    where files change under a running server, from their sizes and times on every call.
    """
    if not app.debug and app.import_name in _build_tokens:
        return _build_tokens[app.import_name]
    roots = [Path(__file__).parents[1]]
    roots += [Path(folder) for folder in (app.template_folder, app.static_folder) if folder]
    if app.debug:
        return _files_digest(roots, contents=False)
    with _build_lock:
        if app.import_name not in _build_tokens:
            _build_tokens[app.import_name] = _files_digest(roots, contents=True)
        return _build_tokens[app.import_name]


def _settings_key() -> tuple[object, ...]:
    """The values of the settings that pages show (names, texts, page sizes)."""
    config = current_app.config
    names = current_app.extensions.get("fieldnotes_page_settings")
    if names is None:  # the names are fixed when the app is built; their values are read
        names = (
            *sorted(k for k in config if k.startswith("SITE_")),
            "POSTS_PER_PAGE",
            "PICKS_COUNT",
        )
        current_app.extensions["fieldnotes_page_settings"] = names
    return tuple(map(config.get, names))


def credential_cookies(config: Mapping[str, Any] | None = None) -> tuple[str, ...]:
    """Names of the cookies that can carry a signed-in editor."""
    config = current_app.config if config is None else config
    return (
        config.get("SESSION_COOKIE_NAME") or "session",
        config.get("REMEMBER_COOKIE_NAME") or REMEMBER_COOKIE_DEFAULT,
    )


def carries_credentials(cookies: Mapping[str, str], config: Mapping[str, Any]) -> bool:
    """True when these cookies include a session or remember-me cookie."""
    return any(name in cookies for name in credential_cookies(config))


def has_credentials() -> bool:
    """True when the request carries a session or remember-me cookie."""
    if "HTTP_COOKIE" not in request.environ:  # most readers: skip parsing cookies
        return False
    return carries_credentials(request.cookies, current_app.config)


def _viewer_key() -> str:
    """Who the page is for: empty for anonymous readers, a digest of their cookies otherwise."""
    if "HTTP_COOKIE" not in request.environ:
        return ""
    values = [request.cookies.get(name, "") for name in credential_cookies()]
    if not any(values):
        return ""
    return hashlib.sha256("\0".join(values).encode()).hexdigest()


def validator(*parts: object, state: Snapshot | None = None) -> Validator:
    """Validators for this request's representation; `parts` name it (view, page, fragment)."""
    state = state or snapshot()
    # With the version, the time of the last change tells a recreated database apart.
    key = f"{_deploy_digest()}|{state.version}|{state.changed_at}|{_viewer_key()}|{parts!r}"
    etag = hashlib.sha256(key.encode()).hexdigest()[:32]
    return Validator(etag, state.last_modified, state)


def _deploy_digest() -> str:
    """A digest of the build token and the page settings, made once per settings values."""
    settings: object = _settings_key()
    try:
        hash(settings)
    except TypeError:  # a setting that is a list or a dict: key by its text instead
        settings = repr(settings)
    known = current_app.extensions.setdefault("fieldnotes_deploy_digests", {})
    digest = known.get(settings)
    if digest is None:
        token = build_token(current_app)
        digest = hashlib.sha256(repr((token, settings)).encode()).hexdigest()
        if not current_app.debug:  # in debug the token follows the files: nothing to keep
            known[settings] = digest
    return digest


def public_cache_control(response: Response) -> None:
    """Let browsers and shared caches keep the response briefly, then revalidate it."""
    config = current_app.config
    response.headers["Cache-Control"] = _public_value(
        config["CACHE_MAX_AGE"], config["CACHE_STALE"]
    )


@functools.lru_cache(maxsize=16)
def _public_value(max_age: int, stale: int) -> str:
    """The Cache-Control value for shared responses with these settings."""
    value = f"public, max-age={max_age}"
    return f"{value}, stale-while-revalidate={stale}" if stale else value


def add_vary(response: Response, names: Iterable[str]) -> None:
    """Add header names to Vary (once each), as plain text: cheaper than werkzeug's HeaderSet,
    which parses and rewrites the header on every change."""
    current = ", ".join(response.headers.getlist("Vary"))  # get() raises inside when missing
    have = [name.strip() for name in current.split(",")] if current else []
    known = {name.lower() for name in have}
    for name in names:
        if name.lower() not in known:
            have.append(name)
            known.add(name.lower())
    if have:
        response.headers["Vary"] = ", ".join(have)


def cacheable(
    response: Response,
    check: Validator,
    *,
    vary: Iterable[str] = (),
    personal: bool = False,
) -> Response:
    """Give a response its validators, its Vary and a Cache-Control.

    `personal` marks an HTML page whose header can show the signed-in editor: it varies by
    Cookie, and it is private to the browser when the request carries credentials.
    """
    headers = response.headers
    headers["ETag"] = check.header
    if check.last_modified is not None:
        headers["Last-Modified"] = http_date(check.last_modified)
    add_vary(response, (*vary, "Cookie") if personal else vary)
    if personal and has_credentials():
        response.cache_control.private = True
        response.cache_control.no_cache = True
    else:
        public_cache_control(response)
    return response


def not_modified(
    check: Validator,
    *,
    vary: Iterable[str] = (),
    personal: bool = False,
    mimetype: str | None = None,
) -> Response | None:
    """A 304 when the client already holds this representation, before anything renders."""
    environ = request.environ
    if request.method not in ("GET", "HEAD"):
        return None
    if "HTTP_IF_NONE_MATCH" not in environ and "HTTP_IF_MODIFIED_SINCE" not in environ:
        return None  # not conditional: skip parsing the headers
    if not (request.if_none_match or request.if_modified_since):
        return None
    # "*" matches any current representation; let a rendered response answer it.
    if request.if_none_match.star_tag:
        return None
    if is_resource_modified(request.environ, etag=check.header, last_modified=check.last_modified):
        return None
    response = current_app.response_class(status=304, mimetype=mimetype)
    return cacheable(response, check, vary=vary, personal=personal)


# --- Rules for every response ----------------------------------------------------------


def _no_store(response: Response) -> None:
    """Forbid every cache from keeping the response."""
    response.cache_control.clear()
    response.cache_control.no_store = True
    response.cache_control.private = True


def cache_rules(response: Response) -> Response:
    """Authoring pages, cookies and errors are never stored; static files are by hash."""
    if (
        request.blueprint in AUTHORING_BLUEPRINTS
        or "Set-Cookie" in response.headers
        or response.status_code >= 400
    ):
        _no_store(response)
    elif request.endpoint == "static":
        _static_cache_control(response)
    return response


# --- Static files with content-hashed URLs -----------------------------------------------

_digest_lock = threading.Lock()
_digests: dict[tuple[str, int, int], str] = {}


def static_digest(filename: str) -> str | None:
    """A short hash of a static file's bytes, cached until the file changes (None if absent)."""
    folder = current_app.static_folder
    path = safe_join(folder, filename) if folder else None
    if path is None:
        return None
    try:
        info = Path(path).stat()
    except OSError:
        return None
    key = (path, info.st_mtime_ns, info.st_size)
    with _digest_lock:
        if key not in _digests:
            _digests[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16]
        return _digests[key]


def _hash_static_urls(endpoint: str, values: dict[str, Any]) -> None:
    """Add `v=<content hash>` to every static URL, so a changed file gets a new URL."""
    if endpoint == "static" and "filename" in values and "v" not in values:
        digest = static_digest(values["filename"])
        if digest:
            values["v"] = digest


def _static_cache_control(response: Response) -> None:
    """A year of immutable caching for a URL whose hash matches; revalidation otherwise."""
    filename = (request.view_args or {}).get("filename", "")
    asked = request.args.get("v")
    response.cache_control.clear()
    if asked and asked == static_digest(filename):
        response.cache_control.public = True
        response.cache_control.max_age = STATIC_MAX_AGE
        response.cache_control.immutable = True
    else:
        response.cache_control.no_cache = True


class NoStoreWithCookies:
    """WSGI wrapper: a response that sets a cookie is never stored by any cache.

    It sees the final headers, after Flask has saved the session and every extension has
    set its cookies, which no after_request function can.
    """

    def __init__(self, wsgi_app: WSGIApplication) -> None:
        self.wsgi_app = wsgi_app

    def __call__(self, environ: WSGIEnvironment, start_response: StartResponse) -> Any:
        """Pass the request through, rewriting Cache-Control when a cookie is set."""

        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            if any(name.lower() == "set-cookie" for name, _ in headers):
                headers = [(n, v) for n, v in headers if n.lower() != "cache-control"]
                headers.append(("Cache-Control", "private, no-store"))
            return start_response(status, headers, exc_info)

        return self.wsgi_app(environ, start)


def init_app(app: Flask) -> None:
    """Attach the version bump, the caching rules, hashed static URLs and compression."""
    _listen_once(AppSession, "before_flush", _before_flush)
    _listen_once(AppSession, "do_orm_execute", _on_execute)
    _listen_once(AppSession, "before_commit", _before_commit)
    _listen_once(AppSession, "after_soft_rollback", _forget_changes)
    app.url_defaults(_hash_static_urls)
    app.after_request(cache_rules)
    # One Compress per app: it keeps its settings on itself, so a shared one would let the
    # last app built decide for all of them.
    app.extensions["compress"] = Compress(app)
    app.wsgi_app = NoStoreWithCookies(app.wsgi_app)  # type: ignore[method-assign]
