"""Settings read from the environment, with the defaults documented in the README."""

from __future__ import annotations

import os
from pathlib import Path

INSTANCE_DIR = Path(__file__).resolve().parent.parent / "instance"
DEV_SECRET_KEY = "fieldnotes-development-only"


def _env(name: str, default: str) -> str:
    """Return an environment variable, treating an empty value as unset."""
    return os.environ.get(name) or default


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
    """Application settings; every name here is documented in the README."""

    SECRET_KEY = os.environ.get("SECRET_KEY") or None
    SQLALCHEMY_DATABASE_URI = database_url()
    SQLALCHEMY_ENGINE_OPTIONS = {"pool_pre_ping": True}

    SITE_NAME = _env("SITE_NAME", "Fieldnotes")
    SITE_HERO = _env("SITE_HERO", "Notes from the people who build and run our systems")
    SITE_DESCRIPTION = _env(
        "SITE_DESCRIPTION",
        "Deep dives, postmortems and small discoveries from our engineering teams.",
    )
    SITE_CTA_LABEL = _env("SITE_CTA_LABEL", "Join the team")
    SITE_CTA_URL = _env("SITE_CTA_URL", "https://example.com/careers")

    # Add rel="nofollow" to links in post bodies that leave the site.
    LINK_NOFOLLOW = _env("LINK_NOFOLLOW", "0").lower() in {"1", "true", "yes", "on"}

    POSTS_PER_PAGE = 12
    PICKS_COUNT = 4
    # Query strings longer than this are refused with 414 before any view runs.
    MAX_QUERY_STRING = 2048
