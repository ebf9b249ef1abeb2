"""Settings read from the environment, with the defaults documented in docs/configuration.md."""

from __future__ import annotations

import os
from pathlib import Path

from blog.markup.budget import DEFAULT_LIMIT, seconds_from_env

# The checkout: templates/, static/, migrations/ and demo/ sit beside the package.
ROOT = Path(__file__).resolve().parent.parent
INSTANCE_DIR = ROOT / "instance"
DEV_SECRET_KEY = "fieldnotes-development-only"


def _env(name: str, default: str) -> str:
    """Return an environment variable, treating an empty value as unset."""
    return os.environ.get(name) or default


def _env_bytes(name: str, default: int) -> int:
    """Return a positive size in bytes from the environment, or refuse to start."""
    raw = _env(name, str(default))
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise RuntimeError(f"{name} must be a positive whole number of bytes, not {raw!r}.")
    return int(raw)


def _env_int(name: str, default: int, low: int, high: int) -> int:
    """Return a whole number between `low` and `high` from the environment, or refuse to start."""
    raw = _env(name, str(default))
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        raise RuntimeError(f"{name} must be a whole number from {low} to {high}, not {raw!r}.")
    return int(raw)


def database_url() -> str:
    """The SQLAlchemy URL: DATABASE_URL, or the SQLite file under instance/."""
    url = _env("DATABASE_URL", f"sqlite:///{INSTANCE_DIR / 'fieldnotes.sqlite3'}")
    # Hosting platforms hand out postgres:// URLs; SQLAlchemy wants the driver named.
    if url.startswith("postgres://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgres://")
    elif url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url.removeprefix("postgresql://")
    return url


class Config:
    """Application settings; every name here is documented in docs/configuration.md."""

    SECRET_KEY = os.environ.get("SECRET_KEY") or None
    SQLALCHEMY_DATABASE_URI = database_url()
    SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}

    SITE_NAME = _env("SITE_NAME", "Fieldnotes")
    SITE_HERO = _env("SITE_HERO", "Notes from the people who build and run our systems")
    SITE_DESCRIPTION = _env(
        "SITE_DESCRIPTION",
        "Deep dives, postmortems and small discoveries from our engineering teams.",
    )
    # The heading and line above the topic filter.
    SITE_LIST_HEADING = _env("SITE_LIST_HEADING", "Notes from the team.")
    SITE_LIST_DESCRIPTION = _env(
        "SITE_LIST_DESCRIPTION",
        "Incident reports, engineering deep dives and benchmarks, written by the people "
        "who ran them.",
    )
    SITE_CTA_LABEL = _env("SITE_CTA_LABEL", "Join the team")
    SITE_CTA_URL = _env("SITE_CTA_URL", "https://example.com/careers")
    # The line beside the brand, and the footer's "About" link (left out when empty).
    SITE_TAGLINE = _env("SITE_TAGLINE", "engineering notes & deep dives")
    SITE_ABOUT_URL = _env("SITE_ABOUT_URL", "")
    # The IANA time zone (like America/New_York) in which the site shows dates and the
    # editor takes them; the store keeps naive UTC. Checked at start (blog/web/templating.py).
    SITE_TIMEZONE = _env("SITE_TIMEZONE", "UTC").strip()

    # Add rel="nofollow" to links in post bodies that leave the site.
    LINK_NOFOLLOW = _env("LINK_NOFOLLOW", "0").lower() in {"1", "true", "yes", "on"}
    # Seconds one Markdown render may take before it is refused (blog/markup/budget.py).
    MARKDOWN_TIME_LIMIT = seconds_from_env("MARKDOWN_TIME_LIMIT", DEFAULT_LIMIT)

    # How many reverse proxies sit in front of the app: their X-Forwarded-For/-Proto headers
    # are trusted for the client address (login rate limits) and the scheme (secure cookies).
    TRUSTED_PROXIES = _env_int("TRUSTED_PROXIES", 0, 0, 10)
    # Host names requests may name, comma-separated; unset, SITE_URL's (blog/web/hosts.py).
    SITE_HOSTS = [
        n.strip() for n in os.environ.get("SITE_HOSTS", "").split(",") if n.strip()
    ] or None

    # Strict-Transport-Security max-age, sent only on answers to requests made over HTTPS.
    HSTS_MAX_AGE = _env_int("HSTS_MAX_AGE", 31_536_000, 0, 63_072_000)

    POSTS_PER_PAGE = 12
    PICKS_COUNT = 4
    # Query strings longer than this are refused with 400 before any view runs.
    MAX_QUERY_STRING = 2048

    # Editors' session cookie: out of scripts' reach, not sent on cross-site posts, and
    # HTTPS-only; None means "Secure unless in debug mode" (settled in blog/auth.py).
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    SESSION_COOKIE_SECURE: bool | None = None
    # CSRF tokens last as long as the session, so a long writing session can still save.
    WTF_CSRF_TIME_LIMIT = None

    # Failed logins allowed per account and per address (Flask-Limiter's notation).
    LOGIN_RATE_LIMIT = _env("LOGIN_RATE_LIMIT", "5 per minute")
    RATELIMIT_STORAGE_URI = _env("RATELIMIT_STORAGE_URI", "memory://")
    RATELIMIT_STRATEGY = "moving-window"
    RATELIMIT_HEADERS_ENABLED = True

    # Uploaded illustrations: the largest file accepted, and the request size around it.
    MAX_IMAGE_BYTES = _env_bytes("MAX_IMAGE_BYTES", 5 * 1024 * 1024)
    MAX_CONTENT_LENGTH = MAX_IMAGE_BYTES + 1024 * 1024
    # Seconds of CPU time checking one uploaded image, or making one resized copy, may take.
    IMAGE_TIME_LIMIT = seconds_from_env("IMAGE_TIME_LIMIT", 5.0)
    # One text field, in bytes: room for a body at its 200,000-character limit even when
    # every character takes four bytes in UTF-8, so such a body gets the 422 that names the
    # limit, not a 413. Within the megabyte MAX_CONTENT_LENGTH leaves beside an image.
    MAX_FORM_MEMORY_SIZE = 1_000_000
    # One text field, in characters, in every form (blog/web/limits.py): twice the body's
    # 200,000-character limit (blog/authoring/forms.py), as a browser may send each line end
    # as CR LF. Longer text no form takes: it is refused with a 413 before any view reads it.
    MAX_FORM_FIELD_CHARS = 400_000

    # Public address of the blog's home page: every absolute URL (feeds, sitemap, canonical,
    # OpenGraph) is built on it, never on the request's Host header.
    SITE_URL = _env("SITE_URL", "http://127.0.0.1:5000")
    # How long browsers and shared caches may keep a public page, then serve it stale while
    # they revalidate it in the background (seconds).
    CACHE_MAX_AGE = _env_int("CACHE_MAX_AGE", 60, 0, 31_536_000)
    CACHE_STALE = _env_int("CACHE_STALE", 300, 0, 31_536_000)
    # Response compression (Flask-Compress): brotli when the client takes it, else gzip, at
    # moderate levels that keep compression cheap per request.
    # Rendered public pages kept per process until the next write (PAGE_CACHE=off turns it
    # off), at most PAGE_CACHE_MB megabytes of them per process.
    PAGE_CACHE = _env("PAGE_CACHE", "on").lower() not in {"0", "off", "false", "no"}
    PAGE_CACHE_MB = _env_int("PAGE_CACHE_MB", 32, 1, 65_536)
    # How long (milliseconds) a process trusts the data version it last read for its cached
    # pages; its own commits are seen at once, other processes' within this time.
    PAGE_CACHE_RECHECK_MS = _env_int("PAGE_CACHE_RECHECK_MS", 100, 0, 10_000)
    COMPRESS_ALGORITHM = ["br", "gzip"]
    COMPRESS_ALGORITHM_STREAMING = ["br", "gzip"]
    COMPRESS_BR_LEVEL = _env_int("COMPRESS_BR_LEVEL", 4, 0, 11)
    COMPRESS_LEVEL = _env_int("COMPRESS_GZIP_LEVEL", 5, 1, 9)
